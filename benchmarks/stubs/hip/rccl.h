// Flat-name forwarder; see rccl/rccl.h.
#pragma once
#include "rccl/rccl.h"

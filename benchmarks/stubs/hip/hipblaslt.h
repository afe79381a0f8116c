// Flat-name forwarder (hipify-perl writes <hipblaslt.h>); see hipblaslt/hipblaslt.h.
#pragma once
#include "hipblaslt/hipblaslt.h"

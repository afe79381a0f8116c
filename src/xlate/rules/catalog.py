"""Imports every rule module so that its rules register themselves."""

from xlate.rules import arch, asm, device, equivalents, launch, masks, matrix, memory, precision, runtime, sync, warp  # noqa: F401

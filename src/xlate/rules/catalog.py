"""Imports every rule module so that its rules register themselves."""

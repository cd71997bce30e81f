"""Devices and meshes: a TPU or GPU the runtime lacks, too few devices, mesh axes."""

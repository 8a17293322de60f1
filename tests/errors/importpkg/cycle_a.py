from .cycle_b import scale

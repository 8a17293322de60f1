from .cycle_a import scale

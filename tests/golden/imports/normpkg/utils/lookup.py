"""A version-independent way to name a libdevice function, as some projects write it: the
module is looked up by a string at import time, the function by its name."""
import importlib
import importlib.util


def libdevice_lookup(name):
    """The libdevice function `name`, wherever this Triton version keeps it."""
    for where in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice",
                  "triton.language.math"):
        if spec := importlib.util.find_spec(where):
            return getattr(importlib.import_module(spec.name), name)
    raise ImportError(f"no libdevice function {name}")

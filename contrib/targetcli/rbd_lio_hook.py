# SPDX-License-Identifier: GPL-2.0
"""Import hook that teaches Debian's rtslib-fb and targetcli about rbd.

rtslib-fb lists its fabrics in a hard-coded dictionary,
``rtslib_fb.fabric.fabric_modules``, and has no plugin mechanism.
``rbd_lio.pth`` therefore puts a tiny finder at the front of
:data:`sys.meta_path` at every interpreter start-up. That finder is
defined in the ``.pth`` line itself, so start-up reads no other file: it
returns ``None`` for every module but the two in :data:`WATCHED`, and for
those it calls :func:`find_spec` here. This module, and through it
:mod:`rbd_lio`, is therefore only ever imported by programs that import
rtslib-fb or targetcli.

:func:`find_spec` lets the other finders locate the real module and wraps
its loader, so that once the module has executed, :func:`rbd_lio.patch`
adds the rbd fabric to it.
"""

import sys

__all__ = ["WATCHED", "FINDER_NAME", "find_spec"]

#: Modules whose loading is followed by :func:`rbd_lio.patch`. The finder
#: in rbd_lio.pth repeats this tuple.
WATCHED = ("rtslib_fb.fabric", "targetcli.ui_target")

#: The class name of the finder that rbd_lio.pth installs.
FINDER_NAME = "RbdLioFinder"


class _PatchingLoader:
    """Run the real loader, then let :mod:`rbd_lio` extend the module."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        """Delegate module creation to the real loader."""
        return self._loader.create_module(spec)

    def exec_module(self, module):
        """Execute the module with the real loader, then patch it.

        A failure to patch is reported as a warning and leaves the module
        as its package ships it: the other fabrics keep working.
        """
        self._loader.exec_module(module)
        try:
            import rbd_lio
            rbd_lio.patch(module)
        except Exception as exc:  # pylint: disable=broad-except
            import warnings
            warnings.warn("rbd: could not add the rbd fabric to %s: %s"
                          % (module.__name__, exc), RuntimeWarning)

    def __getattr__(self, name):
        # get_source(), get_filename(), is_package() ... for tracebacks,
        # linecache and pkgutil.
        return getattr(self._loader, name)


def find_spec(fullname, path=None, target=None):
    """Return the spec of a watched module, with a patching loader.

    The other finders of :data:`sys.meta_path` locate the module; the
    finder of rbd_lio.pth is skipped. Return ``None`` for a module that is
    not watched or not found.
    """
    if fullname not in WATCHED:
        return None
    for finder in sys.meta_path:
        if type(finder).__name__ == FINDER_NAME:
            continue
        finder_find_spec = getattr(finder, "find_spec", None)
        if finder_find_spec is None:
            continue
        spec = finder_find_spec(fullname, path, target)
        if spec is not None:
            break
    else:
        return None
    if spec.loader is None or not hasattr(spec.loader, "exec_module"):
        return spec
    spec.loader = _PatchingLoader(spec.loader)
    return spec

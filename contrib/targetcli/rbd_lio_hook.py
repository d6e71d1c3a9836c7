# SPDX-License-Identifier: GPL-2.0
"""Import hook that teaches Debian's rtslib-fb and targetcli about rbd,
and keeps a targetcli without it from saving rbd targets away.

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

If that fails (:mod:`rbd_lio` does not import under a new Python, a new
rtslib-fb breaks it), rtslib-fb runs without the rbd fabric and its save
would rewrite the configuration file without the rbd targets. So this
module, which depends on nothing in :mod:`rbd_lio`, also wraps
``RTSRoot.save_to_file`` of ``rtslib_fb.root`` (:func:`guard_root`): while
the rbd fabric is missing, a save that would drop rbd targets from the
file is refused with :class:`RbdSaveRefused`. That save is the one behind
targetcli's ``saveconfig``, its save on exit and ``targetctl save``.
"""

import json
import sys

__all__ = ["WATCHED", "FINDER_NAME", "RBD_FABRIC", "RbdSaveRefused",
           "find_spec", "guard_root", "lost_rbd_targets"]

#: Modules whose loading is followed by :func:`rbd_lio.patch` or, for
#: ``rtslib_fb.root``, :func:`guard_root`. The finder in rbd_lio.pth
#: repeats this tuple.
WATCHED = ("rtslib_fb.fabric", "rtslib_fb.root", "targetcli.ui_target")

#: The fabric's name in rtslib-fb and in the saved configuration.
RBD_FABRIC = "rbd"

#: How to repair a missing rbd fabric, for the refusal message.
REPAIR = ("reinstall the rbd integration for this Python "
          "(\"make install-targetcli\" in the rbd sources, see "
          "contrib/targetcli/README.rst) and save again; to delete rbd targets "
          "on purpose, remove them from the file first")

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
        if module.__name__ == "rtslib_fb.root":
            guard_root(module)
            return
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


class RbdSaveRefused(Exception):
    """A save that would drop rbd targets from the file, refused.

    :func:`guard_root` turns it into a subclass of rtslib-fb's
    ``RTSLibError`` too, so that interactive targetcli shows it as an
    error and goes on.
    """


def _saved_rbd_targets(save_file):
    """Return the WWNs of the rbd targets in ``save_file``, in order.

    A missing or unreadable file, or one that is not rtslib's JSON,
    holds none: rtslib's own save handles those as before.
    """
    try:
        with open(save_file, "r", encoding="utf-8") as conf_file:
            conf = json.load(conf_file)
        return [t["wwn"] for t in conf.get("targets", [])
                if t.get("fabric") == RBD_FABRIC and "wwn" in t]
    except (OSError, ValueError, TypeError, AttributeError, KeyError):
        return []


def lost_rbd_targets(saved, conf):
    """Return the WWNs in ``saved`` that ``conf``, a dump, does not hold."""
    kept = {t.get("wwn") for t in conf.get("targets", [])
            if t.get("fabric") == RBD_FABRIC}
    return [wwn for wwn in saved if wwn not in kept]


def _rbd_fabric_known():
    """Whether rtslib-fb's fabric list has the rbd fabric."""
    fabric = sys.modules.get("rtslib_fb.fabric")
    return RBD_FABRIC in getattr(fabric, "fabric_modules", {})


def _check_save(root, save_file, so_path):
    """Raise :class:`RbdSaveRefused` if saving would drop rbd targets.

    With the rbd fabric known, what is saved is what configfs holds (a
    target deleted on purpose goes from the file, as for any fabric).
    Without it, the rbd targets of the file would be lost.
    """
    if _rbd_fabric_known():
        return
    saved = _saved_rbd_targets(save_file)
    if not saved:
        return
    if so_path:
        # pylint: disable=protected-access
        conf = root._get_saveconf(so_path, save_file)
    else:
        conf = root.dump()
    lost = lost_rbd_targets(saved, conf)
    if lost:
        raise RbdSaveRefused(
            "rbd: refusing to save the configuration to %s: the rbd "
            "fabric is missing from rtslib-fb (its integration did not "
            "load, see the warning above), so the save would delete the "
            "rbd target%s %s from the file. To fix it, %s."
            % (save_file, "" if len(lost) == 1 else "s", ", ".join(lost),
               REPAIR))


def _excepthook(hook):
    """Wrap ``hook`` to print a refusal that nobody caught without a
    traceback (targetcli's save on exit, targetctl save)."""
    def excepthook(exc_type, exc, traceback):
        if issubclass(exc_type, RbdSaveRefused):
            print(str(exc), file=sys.stderr)
        else:
            hook(exc_type, exc, traceback)
    excepthook.rbd_lio = True
    return excepthook


def guard_root(module):
    """Make ``RTSRoot.save_to_file`` of ``module`` refuse to lose rbd
    targets (see :func:`_check_save`)."""
    global RbdSaveRefused  # pylint: disable=global-statement
    try:
        rts_root = module.RTSRoot
        save = rts_root.save_to_file
    except AttributeError as exc:
        import warnings
        warnings.warn("rbd: cannot guard rtslib-fb's save against losing "
                      "rbd targets: %s" % exc, RuntimeWarning)
        return
    utils = sys.modules.get("rtslib_fb.utils")
    base = getattr(utils, "RTSLibError", None)
    if isinstance(base, type) and not issubclass(RbdSaveRefused, base):
        RbdSaveRefused = type("RbdSaveRefused", (RbdSaveRefused, base),
                              {"__doc__": RbdSaveRefused.__doc__})

    def save_to_file(self, save_file=None, *args, **kwargs):
        so_path = kwargs.get("so_path", args[0] if args else None)
        path = save_file or getattr(module, "default_save_file", None)
        if path:
            try:
                _check_save(self, path, so_path)
            except RbdSaveRefused:
                if not hasattr(sys.excepthook, "rbd_lio"):
                    sys.excepthook = _excepthook(sys.excepthook)
                raise
        return save(self, save_file, *args, **kwargs)

    save_to_file.__doc__ = save.__doc__
    rts_root.save_to_file = save_to_file


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

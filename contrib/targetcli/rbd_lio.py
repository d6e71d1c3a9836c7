# SPDX-License-Identifier: GPL-2.0
"""The rbd fabric for Debian's rtslib-fb and targetcli.

rbd's LIO fabric module, ``rbdt.ko``, registers the fabric ``rbd`` at
``/sys/kernel/config/target/rbd``. Its tree has the shape of the iSCSI
fabric's: targets named by IQN, ``naa.`` or ``eui.`` names, any number of
``tpgt_N`` portal groups, network portals ``np/<IPv4>:<port>`` and
``np/[<IPv6>]:<port>``, explicit ACLs named like targets, TPG
attributes under ``attrib/``, and iSCSI's authentication groups: ``auth/``
of ACLs and TPGs (``userid``, ``password``, ``userid_mutual``,
``password_mutual``, enforced by the TPG attribute ``authentication``) and
the fabric's ``discovery_auth/``. The fabric root also holds a ``version``
file.

rtslib-fb's generic classes (Target, TPG, NetworkPortal, NodeACL, LUN)
handle all of that once the fabric is described by
:class:`RbdFabricModule`; :func:`patch` adds it to
``rtslib_fb.fabric.fabric_modules`` and gives targetcli's portal commands
the rbd default port. ``rbd_lio_hook`` calls :func:`patch` when either
module is imported; importing this module directly also registers the
fabric.
"""

# While rbd_lio_hook patches rtslib_fb.fabric, the package does not have
# the attribute "fabric" yet; "from ... import" finds it in sys.modules.
from rtslib_fb import fabric as rtslib_fabric
from rtslib_fb import target as rtslib_target
from rtslib_fb.fabric import _BaseFabricModule
from rtslib_fb.utils import fread

__all__ = ["RBD_FABRIC", "RBD_DEFAULT_PORT", "RbdFabricModule",
           "NetworkPortal", "patch", "register", "default_port",
           "fabric_default_port"]

#: The fabric's name: its configfs directory and targetcli node.
RBD_FABRIC = "rbd"

#: The rdma_cm port rbd targets listen on unless told otherwise.
RBD_DEFAULT_PORT = 65000

#: The port targetcli falls back to for fabrics that do not say otherwise.
ISCSI_DEFAULT_PORT = 3260


class RbdFabricModule(_BaseFabricModule):
    """The rbd (RDMA block device) fabric, implemented by ``rbdt.ko``."""

    def __init__(self):
        super().__init__(RBD_FABRIC)
        self.features = ("discovery_auth", "acls", "auth", "nps", "tpgts")
        self.wwn_types = ("iqn", "naa", "eui")
        self.kernel_module = "rbdt"
        self.default_port = RBD_DEFAULT_PORT

    def _get_version(self):
        # rtslib-fb 2.1.75's _BaseFabricModule._get_version() refers to an
        # undefined name, so read the fabric's own file here.
        if not self.exists:
            return None
        return fread("%s/version" % self.path)

    version = property(_get_version,
                       doc="Get the fabric module version string.")


def register(fabric_module=rtslib_fabric):
    """Add :class:`RbdFabricModule` to rtslib-fb's fabric list.

    A fabric called ``rbd`` that is already there (for instance once
    rtslib-fb itself ships one) is left alone.
    """
    fabric_module.fabric_modules.setdefault(RBD_FABRIC, RbdFabricModule)


def fabric_default_port(fabric):
    """Return the default portal port of the rtslib fabric ``fabric``.

    That is its ``default_port`` attribute, else 65000 for a fabric
    called rbd (as the class from the upstream rtslib-fb patch has no
    such attribute), else iSCSI's 3260, which targetcli uses for all.
    """
    if hasattr(fabric, "default_port"):
        return fabric.default_port
    if fabric.name == RBD_FABRIC:
        return RBD_DEFAULT_PORT
    return ISCSI_DEFAULT_PORT


def default_port(tpg):
    """Return the default portal port of the fabric that owns ``tpg``."""
    return fabric_default_port(tpg.parent_target.fabric_module)


class NetworkPortal(rtslib_target.NetworkPortal):
    """rtslib's NetworkPortal whose port defaults to the fabric's.

    targetcli creates the default portal of a new TPG with
    ``NetworkPortal(tpg, "0.0.0.0")``, which means port 3260; with this
    class in its place an rbd TPG gets ``0.0.0.0:65000`` instead. Every
    other fabric still gets 3260. The class keeps its base class's name
    because rtslib puts the class name in its error messages.
    """

    def __init__(self, parent_tpg, ip_address, port=None, mode="any"):
        if port is None:
            port = default_port(parent_tpg)
        super().__init__(parent_tpg, ip_address, port, mode)


# Descriptions shown by targetcli's "get attribute" for the rbd TPG
# attributes it does not already know.
RBD_TPG_ATTRIBUTES = {
    "max_io_size": ("number", "Largest I/O in bytes a session may use "
                    "(4096..16777216, a multiple of 4096)."),
    "queue_depth": ("number", "Commands per queue offered to initiators "
                    "(1..1024)."),
    "max_queues": ("number", "Queues per session offered to initiators "
                   "(1..64)."),
    "inline_data_size": ("number", "Largest write payload sent inline "
                         "with its command, in bytes (0..16384; 0 "
                         "disables)."),
    "imm_read_size": ("number", "Largest read payload returned with its "
                      "response, in bytes (0..16384; 0 disables)."),
    "max_halfopen": ("number", "Connections on a portal address not "
                     "logged in yet, in all (1..4096)."),
    "max_halfopen_per_host": ("number", "The same, from one source "
                              "address (1..4096)."),
    "max_sessions_per_acl": ("number", "Live sessions of one initiator "
                             "name (1..65535)."),
    "data_pool_kb": ("number", "Free data pages each queue of a session "
                     "keeps for its READs and WRITEs, in KiB (0..1048576; "
                     "0: LIO allocates per command)."),
    "max_write_fetches": ("number", "WRITEs of a queue that fetch their "
                          "data at a time (-1: 1 on Soft-RoCE, no limit "
                          "elsewhere; 0: no limit; up to 65535)."),
}


def _patch_ui_target(ui_target):
    """Give targetcli's UI the rbd defaults; other fabrics are unchanged."""
    ui_target.NetworkPortal = NetworkPortal
    for name, desc in RBD_TPG_ATTRIBUTES.items():
        ui_target.UITPG.ui_desc_attributes.setdefault(name, desc)

    portals_create = ui_target.UIPortals.ui_command_create

    # configshell reads the parameters of a ui_command_* method with
    # inspect.getfullargspec(), so the wrappers spell them out.
    def ui_command_create(self, ip_address=None, ip_port=None):
        port = default_port(self.tpg)
        if ip_port is None and port != ISCSI_DEFAULT_PORT:
            self.shell.log.info("Using default IP port %d" % port)
            ip_port = str(port)
        return portals_create(self, ip_address, ip_port)

    ui_command_create.__doc__ = portals_create.__doc__
    ui_target.UIPortals.ui_command_create = ui_command_create

    tpg_create = ui_target.UIMultiTPGTarget.ui_command_create

    def ui_command_create_tpg(self, tag=None):
        result = tpg_create(self, tag)
        port = fabric_default_port(self.rtsnode.fabric_module)
        if port != ISCSI_DEFAULT_PORT and \
                self.shell.prefs["auto_add_default_portal"]:
            self.shell.log.info("The %s fabric's default portal uses port "
                                "%d, not %d." % (self.rtsnode.fabric_module
                                                 .name, port,
                                                 ISCSI_DEFAULT_PORT))
        return result

    ui_command_create_tpg.__doc__ = tpg_create.__doc__
    ui_target.UIMultiTPGTarget.ui_command_create = ui_command_create_tpg


def patch(module):
    """Extend ``module``, one of the modules ``rbd_lio_hook`` watches."""
    if module.__name__ == "rtslib_fb.fabric":
        register(module)
    elif module.__name__ == "targetcli.ui_target":
        _patch_ui_target(module)


register()

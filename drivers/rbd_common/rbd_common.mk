# SPDX-License-Identifier: GPL-2.0
#
# The kernel code rbdt and rbdi share (node names, authentication, kernel
# version differences), and how each module builds it. Both modules'
# Kbuild files include this file. Each compiles its own copy of every
# source listed here into its own directory with kbuild's usual C rule, as
# the arm64 KVM hyp Makefiles do with their shared sources, so neither
# module needs the other's symbols or reaches into the other's directory.
# The shared functions are not exported: each module calls its own copy.

rbd_common_dir := $(src)/../rbd_common
rbd_common-y := rbd_name.o rbd_auth.o

ccflags-y += -I$(rbd_common_dir)

$(addprefix $(obj)/,$(rbd_common-y)): $(obj)/%.o: $(rbd_common_dir)/%.c FORCE
	$(call if_changed_rule,cc_o_c)

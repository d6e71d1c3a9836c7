#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run-guest.sh OUTDIR [CONF]
#
# Runs inside the test guest (started by tests/bench/001 through the rig,
# see bench/bench.sh): one RAM disk (BENCH_BACKEND) exported by every
# transport, the same fio jobs against each transport's block device in
# turn, repetitions interleaved (A B C A B C), and perftest over the same
# soft RDMA link. Writes raw results under OUTDIR:
#
#   fio/<rep>/<transport>/<job>.json   fio's JSON output
#   fio/<rep>/<transport>/<job>.cpu    system-wide CPU busy (jiffies) and
#                                       elapsed jiffies during the job
#   fio/<rep>/<transport>/<job>.cpus   the same per CPU: "busy total" of
#                                       each CPU before, then after the job
#   fio/<rep>/<transport>/<job>.na     why the job cannot run on that
#                                       transport (qd1poll: no poll queues)
#   fio/<rep>/<transport>/<job>.cnt    context switches, interrupts,
#                                       softirqs and the soft RDMA devices'
#                                       packet counters (see counters())
#                                       before and after the job
#   perf/<rep>-<transport>-<job>.txt   perf report of the whole guest
#                                       during the job (BENCH_PERF)
#   perf/<rep>-<transport>-<job>.sched.gz  perf sched timehist of the
#                                       job (BENCH_PERF_MODE=sched)
#   perftest/<rep>/<test>.txt          perftest's output
#   transports.txt                     "name status reason" per transport
#   meta.txt                           settings and versions
#
# A transport that cannot be set up is reported "not available" with the
# reason; the bench goes on with the others. Settings come from CONF
# (shell assignments, written by bench/bench.sh):
#   BENCH_REPS, BENCH_RUNTIME, BENCH_RAMP, BENCH_JOBS, BENCH_TRANSPORTS,
#   BENCH_PERFTEST, BENCH_RD_MIB, BENCH_BACKEND, BENCH_RBDX_ATTRS,
#   BENCH_RBDX_TPG, BENCH_RBDX_PARAMS, BENCH_RBDX_MODULES, BENCH_PERF
#   (TRANSPORT:JOB pairs to profile with "perf record -a -g" during the
#   job)

OUTDIR=$1
CONF=${2:-}
# shellcheck source=/dev/null
[ -n "$CONF" ] && [ -f "$CONF" ] && . "$CONF"

BENCH_REPS=${BENCH_REPS:-2}
BENCH_RUNTIME=${BENCH_RUNTIME:-8}
BENCH_RAMP=${BENCH_RAMP:-2}
BENCH_JOBS=${BENCH_JOBS:-"qd1 qd1poll randread32 randwrite32 read128k write128k read1m"}
BENCH_TRANSPORTS=${BENCH_TRANSPORTS:-"local rbd rnbd nvme srp iser iscsi nbd"}
BENCH_PERFTEST=${BENCH_PERFTEST-"write_bw:4096 write_bw:131072 read_bw:4096 read_bw:131072 write_lat:4096 read_lat:4096 send_lat:4096"}
BENCH_RD_MIB=${BENCH_RD_MIB:-256}
# The RAM disk every transport exports: "nullb", a memory-backed null_blk
# device completing in the submitter's context with a 1 MiB transfer
# limit; or "brd", whose queue keeps the block layer's default limit of
# 255 sectors, which LIO's iblock reports (aligned down to 124 KiB) as
# MAXIMUM TRANSFER LENGTH: the LIO fabrics (rbd, SRP, iSER, iSCSI) then
# split larger I/O into several commands, nvmet and RNBD do not.
BENCH_BACKEND=${BENCH_BACKEND:-nullb}
BENCH_PERF=${BENCH_PERF:-}
BENCH_PERF_MODE=${BENCH_PERF_MODE:-cpu}
# With the polled job, rbd and nvme-rdma log in with one poll queue (on
# top of their interrupt-driven queues, which the other jobs use).
POLL=0
case " $BENCH_JOBS " in *" qd1poll "*) POLL=1 ;; esac

TGT=${RBD_TGT_ADDR:-10.10.0.1}
INI=${RBD_INI_ADDR:-10.10.0.2}
case "$BENCH_BACKEND" in
brd)
	RAM=/dev/ram0
	BACKEND_DESC="brd $RAM, $BENCH_RD_MIB MiB" ;;
nullb)
	RAM=/dev/nullb0
	BACKEND_DESC="null_blk $RAM, memory-backed, completion in the submitter (irqmode 0), max_sectors 2048" ;;
*) echo "BENCH_BACKEND: brd or nullb, not '$BENCH_BACKEND'"; exit 1 ;;
esac
LIO=/sys/kernel/config/target
IQN_RBD=iqn.2026-12.org.example.rbd:bench
INI_RBD=iqn.2026-12.org.example.rbd:bench-ini
IQN_ISCSI=iqn.2026-12.org.example.iscsi:bench
NQN=nqn.2026-12.org.example:bench
HOSTNQN=nqn.2026-12.org.example:bench-host
ISCSI_PORT=3260
ISER_PORT=3261
NBD_PORT=10809
SRP_PORT=5555

LOG=$OUTDIR/bench.log
mkdir -p "$OUTDIR"
: > "$OUTDIR/transports.txt"

log() { echo "$(date +%T) $*" >> "$LOG"; }

# Wait until CMD succeeds, at most SECONDS seconds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	while ! "$@" > /dev/null 2>&1; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.2
	done
}

# Which SCSI disk appeared since the list in $1 (space separated names).
new_sd() {
	local d
	for d in /sys/block/sd*; do
		[ -e "$d" ] || continue
		d=${d##*/}
		case " $1 " in *" $d "*) ;; *) echo "$d"; return 0 ;; esac
	done
	return 1
}
sd_list() { ls /sys/block 2>/dev/null | grep '^sd' | tr '\n' ' '; }

# ------------------------------------------------------------------ targets
# Each setup_<t> prepares the target side once; connect_<t> logs the
# initiator in and prints the block device; disconnect_<t> logs out.
# Every target shares $RAM: LIO's iblock backstore holds it
# exclusively, nvmet and rnbd-server open it shared, nbd-server opens it
# as a file.

LIO_BS=$LIO/core/iblock_0/bench

setup_lio() {
	[ -d "$LIO_BS" ] && return 0
	modprobe -a target_core_mod target_core_iblock || return 1
	mkdir -p "$LIO_BS" &&
		echo "udev_path=$RAM" > "$LIO_BS/control" &&
		echo 1 > "$LIO_BS/enable"
}

# lio_lun TPG FABRIC_PORT_NAME: LUN 0 of TPG on the shared backstore.
lio_lun() {
	mkdir -p "$1/lun/lun_0" && ln -s "$LIO_BS" "$1/lun/lun_0/$2"
}

# local: the RAM disk itself.
setup_local() { [ -b $RAM ]; }
connect_local() { echo $RAM; }
disconnect_local() { :; }

# rbd: rbdt (LIO fabric) + rbdi, configured through configfs.
setup_rbd() {
	local tpg=$LIO/rbd/$IQN_RBD/tpgt_1
	modprobe rbdt 2>&1 || { echo "rbdt does not load"; return 1; }
	setup_lio || return 1
	mkdir -p "$tpg" && mkdir "$tpg/np/$TGT:65000" && lio_lun "$tpg" rbd_port &&
		mkdir -p "$tpg/acls/$INI_RBD/lun_0" &&
		ln -s "$tpg/lun/lun_0" "$tpg/acls/$INI_RBD/lun_0/mapped" &&
		echo 1 > "$tpg/enable" || { echo "rbd target set-up failed"; return 1; }
}
connect_rbd() {
	local s=/sys/kernel/config/rbdi/bench dev a
	modprobe rbdi || { echo "rbdi does not load" >&2; return 1; }
	mkdir "$s" && echo "$TGT" > "$s/traddr" && echo 65000 > "$s/trsvcid" &&
		echo "$IQN_RBD" > "$s/target" && echo 0 > "$s/lun" &&
		echo "$INI_RBD" > "$s/initiator" || { echo "rbdi session set-up failed" >&2; return 1; }
	if [ $POLL = 1 ]; then
		echo 1 > "$s/nr_poll_queues" || { echo "rbdi refuses nr_poll_queues" >&2; return 1; }
	fi
	for a in ${RBD_ATTRS:-}; do
		echo "${a#*=}" > "$s/${a%%=*}" || { echo "rbdi refuses $a" >&2; return 1; }
	done
	if ! echo 1 > "$s/enable"; then
		echo "rbdi login failed: $(dmesg | grep -i rbdi | tail -n1)" >&2
		rmdir "$s"
		return 1
	fi
	dev=$(cat "$s/device")
	wait_for 10 test -b "/dev/$dev" || { echo "no /dev/$dev after login" >&2; return 1; }
	log "rbd: granted_nr_queues $(cat "$s/granted_nr_queues") granted_nr_poll_queues $(cat "$s/granted_nr_poll_queues")"
	echo "/dev/$dev"
}
disconnect_rbd() {
	local s=/sys/kernel/config/rbdi/bench f
	[ -d $s ] || return 0
	# Both ends' counters of the session, for the record.
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	for f in /sys/kernel/debug/rbdt/*/stats /sys/kernel/debug/rbdi/*/stats; do
		[ -f "$f" ] && { echo "== $(date +%T) $f"; cat "$f"; }
	done >> "$OUTDIR/rbd-stats.txt" 2>&1
	echo 0 > $s/enable
	rmdir $s
}

# rbdx: rbd again with the session attributes of BENCH_RBDX_ATTRS
# ("attr=value ..."), the TPG attributes of BENCH_RBDX_TPG
# ("attr=value ...") and the module parameters of BENCH_RBDX_PARAMS
# ("module.param=value ..."); the last two are set before the login and
# restored after the logout, to compare a setting with the defaults in
# one boot. With BENCH_RBDX_MODULES (a directory holding another build's
# rbdt.ko and rbdi.ko, searched three levels down), rbdx runs those
# modules instead, loaded for its turn and replaced by the usual ones
# after it: two builds compared in one boot.
setup_rbdx() { [ -d "$LIO/rbd/$IQN_RBD/tpgt_1" ] || setup_rbd; }
RBDX_SAVED=$OUTDIR/rbdx-params.saved

# rbd_reload [DIR]: the rbd target set up again on rbdt and rbdi from DIR,
# or from the module tree without DIR.
rbd_reload() {
	local m ko
	lio_clear_fabric rbd
	modprobe -r rbdi rbdt || { echo "rbdt or rbdi does not unload" >&2; return 1; }
	if [ -n "${1:-}" ]; then
		for m in rbdt rbdi; do
			ko=$(find "$1" -maxdepth 3 -name "$m.ko" | head -n1)
			insmod "$ko" || { echo "$m.ko of $1 does not load" >&2; return 1; }
			log "rbdx: $ko, srcversion $(modinfo -F srcversion "$ko")"
		done
	fi
	setup_rbd >&2
}

connect_rbdx() {
	local p f
	if [ -n "${BENCH_RBDX_MODULES:-}" ]; then
		rbd_reload "$BENCH_RBDX_MODULES" || return 1
	fi
	modprobe -a rbdt rbdi || { echo "rbdt or rbdi does not load" >&2; return 1; }
	: > "$RBDX_SAVED"
	for p in ${BENCH_RBDX_PARAMS:-}; do
		f=${p%%=*}
		f=/sys/module/${f%%.*}/parameters/${f#*.}
		[ -w "$f" ] || { echo "no writable module parameter ${p%%=*}" >&2; return 1; }
		echo "$f=$(cat "$f")" >> "$RBDX_SAVED"
		echo "${p#*=}" > "$f" || { echo "module parameter ${p%%=*} refuses ${p#*=}" >&2; return 1; }
	done
	for p in ${BENCH_RBDX_TPG:-}; do
		f=$LIO/rbd/$IQN_RBD/tpgt_1/attrib/${p%%=*}
		[ -w "$f" ] || { echo "no TPG attribute ${p%%=*}" >&2; return 1; }
		echo "$f=$(cat "$f")" >> "$RBDX_SAVED"
		echo "${p#*=}" > "$f" || { echo "TPG attribute ${p%%=*} refuses ${p#*=}" >&2; return 1; }
	done
	RBD_ATTRS=${BENCH_RBDX_ATTRS:-} connect_rbd
}
disconnect_rbdx() {
	local p
	disconnect_rbd
	[ -f "$RBDX_SAVED" ] || return 0
	while read -r p; do
		echo "${p#*=}" > "${p%%=*}"
	done < "$RBDX_SAVED"
	rm -f "$RBDX_SAVED"
	if [ -n "${BENCH_RBDX_MODULES:-}" ]; then
		rbd_reload
	fi
}

# RNBD: rnbd-server / rnbd-client (built by scripts/build-rnbd.sh).
setup_rnbd() {
	modprobe rnbd_server 2>&1 || { echo "rnbd_server does not load (scripts/build-rnbd.sh)"; return 1; }
	modprobe rnbd_client 2>&1 || { echo "rnbd_client does not load"; return 1; }
}
connect_rnbd() {
	local before
	before=$(ls /sys/block | grep '^rnbd' | tr '\n' ' ')
	echo "sessname=bench path=ip:$TGT device_path=$RAM" > /sys/class/rnbd-client/ctl/map_device ||
		{ echo "rnbd map_device failed: $(dmesg | grep -i rnbd | tail -n1)" >&2; return 1; }
	local d
	for d in /sys/block/rnbd*; do
		case " $before " in *" ${d##*/} "*) continue ;; esac
		wait_for 10 test -b "/dev/${d##*/}" && { echo "/dev/${d##*/}"; return 0; }
	done
	echo "no rnbd device after map_device" >&2
	return 1
}
disconnect_rnbd() {
	local d
	for d in /sys/block/rnbd*/rnbd/unmap_device; do
		[ -e "$d" ] && echo normal > "$d"
	done
	return 0
}

# NVMe over RDMA: nvmet-rdma target in configfs, nvme-cli.
setup_nvme() {
	local n=/sys/kernel/config/nvmet
	modprobe -a nvmet nvmet_rdma nvme_rdma || { echo "nvmet/nvme modules do not load"; return 1; }
	mkdir -p "$n/subsystems/$NQN/namespaces/1" &&
		echo 1 > "$n/subsystems/$NQN/attr_allow_any_host" &&
		echo $RAM > "$n/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 > "$n/subsystems/$NQN/namespaces/1/enable" &&
		mkdir -p "$n/ports/1" &&
		echo rdma > "$n/ports/1/addr_trtype" &&
		echo ipv4 > "$n/ports/1/addr_adrfam" &&
		echo "$TGT" > "$n/ports/1/addr_traddr" &&
		echo 4420 > "$n/ports/1/addr_trsvcid" &&
		ln -s "$n/subsystems/$NQN" "$n/ports/1/subsystems/$NQN" ||
		{ echo "nvmet configfs set-up failed"; return 1; }
}
connect_nvme() {
	local c poll=
	[ $POLL = 1 ] && poll=--nr-poll-queues=1
	timeout 60 nvme connect -t rdma -a "$TGT" -s 4420 -n "$NQN" --hostnqn="$HOSTNQN" $poll >> "$LOG" 2>&1 ||
		{ echo "nvme connect failed: $(dmesg | grep -i nvme | tail -n1)" >&2; return 1; }
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		wait_for 10 test -b "/dev/${c##*/}n1" && { echo "/dev/${c##*/}n1"; return 0; }
	done
	echo "no namespace block device after nvme connect" >&2
	return 1
}
disconnect_nvme() { timeout 60 nvme disconnect -n "$NQN" >> "$LOG" 2>&1; }

# SRP: LIO ib_srpt listening on rdma_cm, ib_srp with dest=IP:port.
setup_srp() {
	local gid guid tpg a
	modprobe -a ib_srpt ib_srp || { echo "ib_srpt/ib_srp do not load"; return 1; }
	setup_lio || return 1
	gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0 2>/dev/null) ||
		{ echo "no GID on rxe0"; return 1; }
	# srpt names a port after the interface ID of GID 0: xxxx:xxxx:xxxx:xxxx.
	guid=$(echo "$gid" | cut -d: -f5-8)
	mkdir -p "$LIO/srpt" || return 1
	echo $SRP_PORT > "$LIO/srpt/discovery_auth/rdma_cm_port" ||
		{ echo "srpt rdma_cm_port refused"; return 1; }
	tpg=$LIO/srpt/$guid/tpgt_1
	mkdir -p "$tpg" || { echo "srpt target $guid refused"; return 1; }
	lio_lun "$tpg" srpt_port || return 1
	# rdma_cm logins are named after the initiator's IP address; the
	# source address of a loopback connection may be either end.
	for a in "$INI" "$TGT"; do
		mkdir -p "$tpg/acls/$a/lun_0" &&
			ln -s "$tpg/lun/lun_0" "$tpg/acls/$a/lun_0/mapped" || return 1
	done
	echo 1 > "$tpg/enable" || { echo "srpt TPG enable failed"; return 1; }
	echo "${guid//:/}" > /run/bench-srp-guid
}
connect_srp() {
	local before g sd
	g=$(cat /run/bench-srp-guid)
	before=$(sd_list)
	echo "id_ext=$g,ioc_guid=$g,dest=$TGT:$SRP_PORT,queue_size=128" \
		> /sys/class/infiniband_srp/srp-rxe0-1/add_target ||
		{ echo "ib_srp add_target failed: $(dmesg | grep -i srp | tail -n1)" >&2; return 1; }
	wait_for 15 new_sd "$before" || { echo "no SCSI disk after SRP login" >&2; return 1; }
	sd=$(new_sd "$before")
	wait_for 10 test -b "/dev/$sd" || return 1
	echo "/dev/$sd"
}
disconnect_srp() {
	local h
	for h in /sys/class/srp_remote_ports/*/delete; do
		[ -e "$h" ] && echo 1 > "$h"
	done
	wait_for 10 sh -c '! ls /sys/class/srp_remote_ports/* > /dev/null 2>&1'
}

# iSCSI target with two portals: TCP on 3260, iSER on 3261.
setup_iscsi_target() {
	local tpg=$LIO/iscsi/$IQN_ISCSI/tpgt_1
	[ -d "$tpg" ] && return 0
	modprobe -a iscsi_target_mod || { echo "iscsi_target_mod does not load"; return 1; }
	setup_lio || return 1
	mkdir -p "$tpg" && lio_lun "$tpg" iscsi_port &&
		echo 1 > "$tpg/attrib/generate_node_acls" &&
		echo 1 > "$tpg/attrib/cache_dynamic_acls" &&
		echo 0 > "$tpg/attrib/demo_mode_write_protect" &&
		echo 0 > "$tpg/attrib/authentication" &&
		mkdir "$tpg/np/$TGT:$ISCSI_PORT" ||
		{ echo "iSCSI target set-up failed"; return 1; }
	echo 1 > "$tpg/enable" || { echo "iSCSI TPG enable failed"; return 1; }
}
start_iscsid() {
	pgrep -x iscsid > /dev/null && return 0
	modprobe -a iscsi_tcp ib_iser scsi_transport_iscsi || return 1
	mkdir -p /run/lock/iscsi /etc/iscsi
	[ -s /etc/iscsi/initiatorname.iscsi ] ||
		echo "InitiatorName=iqn.2026-12.org.example:bench-iscsi-ini" > /etc/iscsi/initiatorname.iscsi
	iscsid >> "$LOG" 2>&1 || return 1
	wait_for 5 pgrep -x iscsid
}
setup_iscsi() {
	setup_iscsi_target || return 1
	start_iscsid || { echo "iscsid does not start"; return 1; }
}
setup_iser() {
	local tpg=$LIO/iscsi/$IQN_ISCSI/tpgt_1
	modprobe ib_isert || { echo "ib_isert does not load"; return 1; }
	setup_iscsi_target || return 1
	mkdir "$tpg/np/$TGT:$ISER_PORT" && echo 1 > "$tpg/np/$TGT:$ISER_PORT/iser" ||
		{ echo "iSER portal refused"; return 1; }
	start_iscsid || { echo "iscsid does not start"; return 1; }
}
# iscsi_login IFACE PORT
iscsi_login() {
	local before sd
	before=$(sd_list)
	iscsiadm -m node -o new -T "$IQN_ISCSI" -p "$TGT:$2" -I "$1" >> "$LOG" 2>&1 &&
		timeout 90 iscsiadm -m node -T "$IQN_ISCSI" -p "$TGT:$2" -I "$1" --login >> "$LOG" 2>&1 ||
		{ echo "iscsiadm login ($1) failed: $(tail -n1 "$LOG")" >&2; return 1; }
	wait_for 15 new_sd "$before" || { echo "no SCSI disk after iSCSI login ($1)" >&2; return 1; }
	sd=$(new_sd "$before")
	wait_for 10 test -b "/dev/$sd" || return 1
	echo "/dev/$sd"
}
iscsi_logout() {
	timeout 60 iscsiadm -m node -T "$IQN_ISCSI" -p "$TGT:$2" -I "$1" --logout >> "$LOG" 2>&1
	iscsiadm -m node -o delete -T "$IQN_ISCSI" -p "$TGT:$2" -I "$1" >> "$LOG" 2>&1
	return 0
}
connect_iscsi() { iscsi_login default $ISCSI_PORT; }
disconnect_iscsi() { iscsi_logout default $ISCSI_PORT; }
connect_iser() { iscsi_login iser $ISER_PORT; }
disconnect_iser() { iscsi_logout iser $ISER_PORT; }

# NBD over TCP: nbd-server exporting /dev/ram0, the kernel's nbd client.
setup_nbd() {
	modprobe nbd nbds_max=2 || { echo "nbd does not load"; return 1; }
	command -v nbd-server > /dev/null || { echo "nbd-server is not installed"; return 1; }
	cat > /run/bench-nbd.conf <<-EOF
	[generic]
	user = root
	group = root
	listenaddr = $TGT
	port = $NBD_PORT
	[bench]
	exportname = $RAM
	EOF
	nbd-server -C /run/bench-nbd.conf -p /run/bench-nbd.pid >> "$LOG" 2>&1 ||
		{ echo "nbd-server does not start"; return 1; }
}
connect_nbd() {
	timeout 60 nbd-client "$TGT" $NBD_PORT /dev/nbd0 -N bench -b 4096 >> "$LOG" 2>&1 ||
		{ echo "nbd-client failed: $(tail -n1 "$LOG")" >&2; return 1; }
	wait_for 10 sh -c '[ "$(cat /sys/block/nbd0/size)" != 0 ]' || return 1
	echo /dev/nbd0
}
disconnect_nbd() { timeout 60 nbd-client -d /dev/nbd0 >> "$LOG" 2>&1; }

# ------------------------------------------------------------------ fio
# job NAME: fio options (without the device).
job_opts() {
	local aio=--ioengine=libaio
	case "$1" in
	qd1) echo "$aio --rw=randread --bs=4k --iodepth=1 --numjobs=1" ;;
	# polled completions: io_uring with IORING_SETUP_IOPOLL
	qd1poll) echo "--ioengine=io_uring --hipri --rw=randread --bs=4k --iodepth=1 --numjobs=1" ;;
	randread32) echo "$aio --rw=randread --bs=4k --iodepth=32 --numjobs=2" ;;
	randwrite32) echo "$aio --rw=randwrite --bs=4k --iodepth=32 --numjobs=2" ;;
	read128k) echo "$aio --rw=read --bs=128k --iodepth=8 --numjobs=1" ;;
	write128k) echo "$aio --rw=write --bs=128k --iodepth=8 --numjobs=1" ;;
	read1m) echo "$aio --rw=read --bs=1M --iodepth=4 --numjobs=1" ;;
	*) return 1 ;;
	esac
}

# job_na TRANSPORT DEV JOB: why JOB cannot run on DEV (nothing if it can).
job_na() {
	[ "$3" = qd1poll ] || return 0
	local q=/sys/block/${2##*/}/queue/io_poll
	case "$1" in
	rbd | rbdx | nvme)
		[ "$(cat "$q" 2>/dev/null)" = 1 ] && return 0
		echo "no poll queue granted (queue/io_poll is not 1)" ;;
	local) echo "the bench's $BENCH_BACKEND device has no poll queues" ;;
	rnbd) echo "the bench does not set up RNBD's poll queues" ;;
	srp | iser | iscsi) echo "SCSI initiator without poll queues" ;;
	nbd) echo "nbd has no poll queues" ;;
	*) echo "no poll queues" ;;
	esac
}

# perf_want TRANSPORT JOB: whether BENCH_PERF names TRANSPORT:JOB.
perf_want() {
	case " $BENCH_PERF " in *" $1:$2 "*) ;; *) return 1 ;; esac
	command -v perf > /dev/null || { log "perf: not installed"; return 1; }
}

# perf_report DATA OUT: the top symbols, self time, of the whole guest;
# then the same by module, and the call graphs of the top symbols. In
# sched mode: the summary per task and idle time per CPU, and the whole
# timeline (every switch: CPU, task, its wait, delay and run time).
perf_report() {
	[ -f "$1" ] || return 0
	if [ "$BENCH_PERF_MODE" = sched ]; then
		perf sched timehist -i "$1" -s -I > "$2.txt" 2>&1
		perf sched timehist -i "$1" 2>&1 | gzip > "$2.sched.gz"
		rm -f "$1"
		return 0
	fi
	{
		echo "== by symbol (self)"
		perf report -i "$1" --stdio --no-children --sort sym -g none --percent-limit 0.5 2>&1
		echo "== by CPU (self)"
		perf report -i "$1" --stdio --no-children --sort cpu -g none 2>&1
		echo "== by task (self)"
		perf report -i "$1" --stdio --no-children --sort pid -g none --percent-limit 0.5 2>&1
		echo "== by CPU and task (self)"
		perf report -i "$1" --stdio --no-children --sort cpu,pid -g none --percent-limit 0.5 2>&1
		echo "== by module (self)"
		perf report -i "$1" --stdio --no-children --sort dso -g none 2>&1
		echo "== by symbol (children)"
		perf report -i "$1" --stdio --children --sort sym -g none --percent-limit 0.3 2>&1
		echo "== call graphs (self, callers)"
		perf report -i "$1" --stdio --no-children --sort sym -g caller,0.5,callee --percent-limit 2 2>&1
	} > "$2.txt"
	rm -f "$1"
}

# cpu_jiffies: "busy total" from /proc/stat (all CPUs).
cpu_jiffies() {
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat
}

# cpus_jiffies: "busy total" of each CPU, on one line, in CPU order.
cpus_jiffies() {
	awk '/^cpu[0-9]/ { t = 0; for (i = 2; i <= NF; i++) t += $i; printf "%d %d ", t - $5 - $6, t }
		END { print "" }' /proc/stat
}

# RXE_COUNTERS: rxe's hw_counters summed over every RDMA device that has
# them: packets sent, requests the responder saw twice or out of order,
# sequence errors and retries of the requester (retransmissions), RNR NAKs
# and sends rxe failed to transmit.
RXE_COUNTERS="sent_pkts duplicate_request out_of_seq_request rcvd_seq_err
	completer_retry_err rcvd_rnr_err send_err"

# counters: context switches, interrupts, softirqs (all CPUs, since boot),
# then each of RXE_COUNTERS (0 where no device has it).
counters() {
	local c d n sum
	awk '/^ctxt / { c = $2 } /^intr / { i = $2 } /^softirq / { s = $2 }
		END { printf "%s %s %s", c, i, s }' /proc/stat
	for c in $RXE_COUNTERS; do
		sum=0
		for d in /sys/class/infiniband/*/ports/1/hw_counters; do
			[ -r "$d/$c" ] || continue
			n=$(cat "$d/$c" 2>/dev/null) || continue
			sum=$((sum + n))
		done
		printf ' %s' "$sum"
	done
	echo
}

# run_job DEV JOB OUT [PERF]: with PERF, the whole guest is profiled while
# fio runs (perf starts fio once it records) and perf's data goes to PERF.
run_job() {
	local dev=$1 job=$2 out=$3 a b ca cb pa pb
	local perf=()
	if [ -n "${4:-}" ] && [ "$BENCH_PERF_MODE" = sched ]; then
		perf=(perf sched record -a -o "$4" --)
	elif [ -n "${4:-}" ]; then
		perf=(perf record -a -g -F 499 -o "$4" --)
	fi
	# shellcheck disable=SC2046
	a=$(cpu_jiffies)
	pa=$(cpus_jiffies)
	ca=$(counters)
	timeout $((BENCH_RUNTIME + BENCH_RAMP + 60)) "${perf[@]}" \
		fio --name="$job" --filename="$dev" --direct=1 \
		--time_based --runtime="$BENCH_RUNTIME" --ramp_time="$BENCH_RAMP" \
		--size="${BENCH_RD_MIB}M" --norandommap --randrepeat=0 \
		--lat_percentiles=1 --percentile_list=50:99 \
		--output-format=json --output="$out.json" $(job_opts "$job") >> "$LOG" 2>&1
	local rc=$?
	b=$(cpu_jiffies)
	pb=$(cpus_jiffies)
	cb=$(counters)
	echo "$a $b" > "$out.cpu"
	printf '%s\n%s\n' "$pa" "$pb" > "$out.cpus"
	echo "$ca $cb" > "$out.cnt"
	return $rc
}

# ------------------------------------------------------------------ perftest
# perftest_listening TEST: the perftest server has its rdma_cm listener.
perftest_listening() {
	rdma resource show cm_id | grep 'state LISTEN' | grep -Eq "comm ib_$1( |$)"
}

# perftest TEST SIZE OUT: server first, then client; retry when perftest's
# clock calibration fails (figures 0 or inf). The client starts only once
# the server listens: a client rejected by a server not yet listening
# crashes in its error path (a general protection fault in librdmacm on
# the console, seen with ib_write_lat).
perftest_one() {
	local t=$1 size=$2 out=$3 try spid ok=0 iters=2000
	case "$t" in *_bw) [ "$size" -ge 65536 ] && iters=500 ;; esac
	for try in 1 2 3; do
		"ib_$t" -R -F -s "$size" -n $iters > "$out.server" 2>&1 &
		spid=$!
		if ! wait_for 30 perftest_listening "$t"; then
			log "perftest $t $size: the server does not listen"
			kill "$spid" 2> /dev/null
			wait "$spid" 2> /dev/null
			continue
		fi
		timeout 60 "ib_$t" -R -F -s "$size" -n $iters "$TGT" > "$out" 2>&1
		wait_for 10 sh -c "! kill -0 $spid"
		kill "$spid" 2> /dev/null
		wait "$spid" 2> /dev/null
		# The result line starts with the message size.
		if awk -v s="$size" '$1 == s && NF >= 4 { for (i = 2; i <= NF; i++)
				if ($i == "inf" || $i == "nan") exit 1
				if ($4 + 0 > 0) { ok = 1 } } END { exit !ok }' "$out"; then
			ok=1
			break
		fi
		log "perftest $t $size: attempt $try failed"
		mv "$out" "$out.try$try"
		sleep 1
	done
	[ $ok = 1 ]
}

# ------------------------------------------------------------------ teardown
# Undo every set-up, so every module unloads (the rig checks rbdt and rbdi).
lio_clear_fabric() {
	local f=$LIO/$1 t tpg a l x
	[ -d "$f" ] || return 0
	for t in "$f"/*/; do
		[ -d "$t" ] || continue
		case "$(basename "$t")" in discovery_auth) continue ;; esac
		for tpg in "$t"tpgt_*/; do
			[ -d "$tpg" ] || continue
			echo 0 > "$tpg/enable" 2> /dev/null
			for a in "$tpg"acls/*/; do
				[ -d "$a" ] || continue
				for l in "$a"lun_*/; do
					[ -d "$l" ] || continue
					for x in "$l"*; do [ -L "$x" ] && rm -f "$x"; done
					rmdir "$l"
				done
				rmdir "$a"
			done
			for l in "$tpg"lun/lun_*/; do
				[ -d "$l" ] || continue
				for x in "$l"*; do [ -L "$x" ] && rm -f "$x"; done
				rmdir "$l"
			done
			for x in "$tpg"np/*/; do [ -d "$x" ] && rmdir "$x"; done
			rmdir "$tpg"
		done
		rmdir "$t"
	done
	rmdir "$f" 2> /dev/null
	return 0
}

teardown() {
	local n=/sys/kernel/config/nvmet t
	for t in $BENCH_TRANSPORTS; do "disconnect_$t" > /dev/null 2>&1; done
	[ -f /run/bench-nbd.pid ] && kill "$(cat /run/bench-nbd.pid)" 2> /dev/null
	if [ -d "$n/ports/1" ]; then
		rm -f "$n/ports/1/subsystems/$NQN"
		rmdir "$n/ports/1"
		echo 0 > "$n/subsystems/$NQN/namespaces/1/enable"
		rmdir "$n/subsystems/$NQN/namespaces/1" "$n/subsystems/$NQN"
	fi
	for t in rbd srpt iscsi; do lio_clear_fabric "$t"; done
	[ -d "$LIO_BS" ] && rmdir "$LIO_BS" && rmdir "$LIO/core/iblock_0"
	modprobe -r rbdi rbdt
	return 0
}

# ------------------------------------------------------------------ main
{
	echo "kernel $(uname -r)"
	echo "cpus $(nproc)"
	echo "reps $BENCH_REPS runtime $BENCH_RUNTIME ramp $BENCH_RAMP"
	echo "jobs $BENCH_JOBS"
	echo "transports $BENCH_TRANSPORTS"
	echo "rbdx_attrs ${BENCH_RBDX_ATTRS:-}"
	echo "rbdx_params ${BENCH_RBDX_PARAMS:-}"
	echo "rbdx_tpg_attrs ${BENCH_RBDX_TPG:-}"
	echo "rbdx_modules ${BENCH_RBDX_MODULES:-}"
	echo "fio $(fio --version)"
	echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "backend $BACKEND_DESC"
	echo "topology rxe0 on vA ($TGT) and rxe1 on vB ($INI); rdma_cm resolves both ends to rxe0 (loopback)"
	rdma link show
} > "$OUTDIR/meta.txt" 2>&1

modprobe -a sd_mod sg > /dev/null 2>&1
if [ "$BENCH_BACKEND" = brd ]; then
	modprobe brd rd_nr=1 rd_size=$((BENCH_RD_MIB * 1024)) || { echo "brd does not load"; exit 1; }
else
	modprobe null_blk nr_devices=1 queue_mode=2 irqmode=0 memory_backed=1 \
		bs=512 gb=$(((BENCH_RD_MIB + 1023) / 1024)) max_sectors=2048 \
		hw_queue_depth=128 || { echo "null_blk does not load"; exit 1; }
fi
udevadm settle 2> /dev/null
[ -b "$RAM" ] || { echo "no $RAM"; exit 1; }
echo "backend_max_hw_sectors_kb $(cat "/sys/block/${RAM#/dev/}/queue/max_hw_sectors_kb")" >> "$OUTDIR/meta.txt"
# Fill the RAM disk once, so reads are not served from unallocated pages.
dd if=/dev/zero of=$RAM bs=1M count="$BENCH_RD_MIB" oflag=direct 2>> "$LOG"

avail=()
for t in $BENCH_TRANSPORTS; do
	log "setup $t"
	if reason=$("setup_$t" 2>&1); then
		avail+=("$t")
		echo "$t ok" >> "$OUTDIR/transports.txt"
	else
		reason=$(echo "$reason" | tail -n3 | paste -sd " ")
		echo "$t unavailable ${reason:-set-up failed}" >> "$OUTDIR/transports.txt"
		log "setup $t failed: $reason"
	fi
done

declare -A failed
for ((rep = 1; rep <= BENCH_REPS; rep++)); do
	for t in "${avail[@]}"; do
		[ -n "${failed[$t]:-}" ] && continue
		log "rep $rep: $t connect"
		if ! dev=$("connect_$t" 2> "$OUTDIR/err"); then
			failed[$t]=$(tail -n1 "$OUTDIR/err")
			log "rep $rep: $t connect failed: ${failed[$t]}"
			sed -i "s|^$t ok\$|$t unavailable ${failed[$t]:-connect failed}|" "$OUTDIR/transports.txt"
			"disconnect_$t" > /dev/null 2>&1
			continue
		fi
		log "rep $rep: $t on $dev"
		d=$OUTDIR/fio/$rep/$t
		mkdir -p "$d"
		for j in $BENCH_JOBS; do
			if na=$(job_na "$t" "$dev" "$j") && [ -n "$na" ]; then
				log "rep $rep: $t $j: not available: $na"
				echo "$na" > "$d/$j.na"
				continue
			fi
			log "rep $rep: $t $j"
			pd=
			perf_want "$t" "$j" && pd=/tmp/bench-perf.data
			run_job "$dev" "$j" "$d/$j" $pd || log "rep $rep: $t $j: fio failed"
			if [ -n "$pd" ]; then
				mkdir -p "$OUTDIR/perf"
				perf_report $pd "$OUTDIR/perf/$rep-$t-$j"
			fi
		done
		"disconnect_$t" >> "$LOG" 2>&1 || log "rep $rep: $t disconnect failed"
	done
	if [ -n "$BENCH_PERFTEST" ]; then
		mkdir -p "$OUTDIR/perftest/$rep"
		for p in $BENCH_PERFTEST; do
			log "rep $rep: perftest $p"
			perftest_one "${p%:*}" "${p#*:}" "$OUTDIR/perftest/$rep/${p%:*}-${p#*:}.txt" ||
				log "rep $rep: perftest $p failed"
		done
	fi
done
rm -f "$OUTDIR/err"
log "teardown"
teardown >> "$LOG" 2>&1
log "done"
echo done > "$OUTDIR/done"

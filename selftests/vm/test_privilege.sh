#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Who may use each control of Tonic (Documentation/privilege.md, one case
# per row and caller): every net.tonic sysctl, every netlink operation and
# the events group, program load/replace/unload, every Tonic socket option
# including the choice of a protocol, the cgroup protocol and `tonic run`,
# the debug and statistics files.  Each is tried by an unprivileged user
# (nobody) in the initial namespaces and by root of a user namespace of
# its own owning a network namespace of its own (`unshare -Urn` run by
# nobody: container root), with the errno asserted and a refused write
# shown to change nothing; TCP's analogue is asserted next to it.
cd "$(dirname "$0")/../.." || exit 1
. selftests/vm/lib.sh

TONIC=./build/tonic
SYS=/proc/sys/net/tonic
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
CROOT="$NOBODY unshare -Urn"
NS=tonic-priv
LOWPORT=81
# name min: every setting of kmod/ctl/settings.h and its lowest value
SETTINGS=$(sed -n 's/^TONIC_SETTING(\([a-z_]*\), [A-Z_]*, [^,]*, \([0-9]*\), [0-9]*)$/\1 \2/p' \
	kmod/ctl/settings.h)
T=

cleanup() {
	local p
	for p in reno sack ndp; do
		[ -e /sys/fs/bpf/tonic/$p ] && $TONIC prog unload $p >/dev/null 2>&1
	done
	ip netns del $NS 2>/dev/null
	[ -e /sys/module/tonic ] && rmmod_tonic >/dev/null 2>&1
	modprobe -r tcp_htcp 2>/dev/null
	[ -z "$T" ] || rm -rf "$T"
}

tap_plan 65
trap cleanup EXIT
T=$(mktemp -d)
chmod 755 "$T"

# wr FILE VALUE: write like `echo VALUE > FILE`; print ok or the errno
wr() {
	local out
	out=$({ printf '%s\n' "$2" >"$1"; } 2>&1) && { echo ok; return; }
	case $out in
	*"Permission denied"*) echo EACCES ;;
	*"not permitted"*) echo EPERM ;;
	*"No such file"*) echo ENOENT ;;
	*"Invalid argument"*) echo EINVAL ;;
	*) echo "other: $out" ;;
	esac
}

# want FILE KEY=RESULT...: each KEY has that RESULT in FILE ("KEY RESULT")
want() {
	local f=$1 kv bad=0
	shift
	for kv in "$@"; do
		if ! grep -qxF "${kv%%=*} ${kv#*=}" "$f"; then
			echo "want '${kv%%=*} ${kv#*=}', got '$(grep -F "${kv%%=*} " "$f" | head -1)'"
			bad=1
		fi
	done
	return $bad
}

# is ACTUAL EXPECTED: equal, else say both
is() {
	[ "$1" = "$2" ] || { echo "got '$1', want '$2'"; return 1; }
}

# for the shells of each case, and of other users (setpriv and unshare
# keep the environment)
export -f wr want is rmmod_tonic

settings_values() {
	local n m
	while read -r n m; do echo "$n $(cat $SYS/$n)"; done <<<"$SETTINGS"
}

# ---- setup ----
tap_check "insmod tonic.ko bpf_sim=1" insmod $TONIC_KO bpf_sim=1
tap_check "setup: reno and sack attached, htcp available to TCP and not allowed" \
	bash -c "$TONIC prog load build/bpf/reno.bpf.o && $TONIC prog load build/bpf/sack.bpf.o &&
		 modprobe tcp_htcp &&
		 grep -qw htcp /proc/sys/net/ipv4/tcp_available_congestion_control &&
		 ! grep -qw htcp /proc/sys/net/ipv4/tcp_allowed_congestion_control"
tap_check "setup: the host allows rack and reno (net.tonic.allowed_protocols)" \
	bash -c "is \"\$(wr $SYS/allowed_protocols 'rack reno')\" ok &&
		 is \"\$(cat $SYS/allowed_protocols)\" 'rack reno'"
tap_check "setup: nobody is uid 65534; container root is 0 mapped to 65534" bash -c \
	"is \"\$($NOBODY id -u)\" 65534 &&
	 is \"\$($CROOT sh -c 'id -u; cat /proc/self/uid_map' | xargs)\" '0 0 65534 1'"

HOST_SETTINGS=$(settings_values)
# the per-socket and netlink controls, each caller in one process
$NOBODY python3 selftests/vm/priv_sock.py reno sack htcp $LOWPORT >"$T/sock.N" 2>&1
$CROOT sh -c "ip link set lo up && exec python3 selftests/vm/priv_sock.py reno sack htcp $LOWPORT" \
	>"$T/sock.U" 2>&1
$NOBODY python3 selftests/vm/priv_nl.py 8 newreno >"$T/nl.N" 2>&1
$CROOT python3 selftests/vm/priv_nl.py 8 newreno reno sack >"$T/nl.U" 2>&1
for f in sock.N sock.U nl.N nl.U; do sed "s/^/# $f: /" "$T/$f"; done

# ---- sysctls ----
tap_check "settings, read: nobody reads every net.tonic setting" bash -c \
	"while read -r n m; do cat $SYS/\$n >/dev/null || exit 1; done <<<'$SETTINGS'"
tap_check "settings, read: container root reads its namespace's, the defaults" bash -c \
	"is \"\$($CROOT bash -c 'while read -r n m; do echo \$n \$(cat $SYS/\$n); done' <<<'$SETTINGS')\" '$HOST_SETTINGS'"
tap_check "settings, write: EACCES to nobody for each (as tcp_syn_retries), nothing changed" bash -c \
	"while read -r n m; do r=\$($NOBODY bash -c \"wr $SYS/\$n \$m\" </dev/null)
		[ \"\$r\" = EACCES ] || { echo \"\$n: \$r\"; exit 1; }; done <<<'$SETTINGS'
	 is \"\$($NOBODY bash -c \"wr /proc/sys/net/ipv4/tcp_syn_retries 2\")\" EACCES &&
	 is \"\$(while read -r n m; do echo \$n \$(cat $SYS/\$n); done <<<'$SETTINGS')\" '$HOST_SETTINGS'"
tap_check "settings, write: container root sets each in its namespace (as tcp_syn_retries), not the host's" bash -c \
	"$CROOT bash -c 'while read -r n m; do is \"\$(wr $SYS/\$n \$m)\" ok && is \"\$(cat $SYS/\$n)\" \$m ||
		{ echo \$n; exit 1; }; done
	 is \"\$(wr /proc/sys/net/ipv4/tcp_syn_retries 2)\" ok' <<<'$SETTINGS' &&
	 is \"\$(while read -r n m; do echo \$n \$(cat $SYS/\$n); done <<<'$SETTINGS')\" '$HOST_SETTINGS'"

tap_check "default_protocol, read: nobody reads the host's (rack)" \
	bash -c "is \"\$($NOBODY cat $SYS/default_protocol)\" rack"
tap_check "default_protocol, read: container root reads its namespace's (rack)" \
	bash -c "is \"\$($CROOT cat $SYS/default_protocol)\" rack"
tap_check "default_protocol, write: EACCES to nobody (as tcp_congestion_control), unchanged" \
	bash -c "is \"\$($NOBODY bash -c 'wr $SYS/default_protocol newreno
			 wr /proc/sys/net/ipv4/tcp_congestion_control reno' | xargs)\" 'EACCES EACCES' &&
		 is \"\$(cat $SYS/default_protocol)\" rack"
tap_check "default_protocol, write: container root: built-in or host-allowed ok, sack EPERM (as htcp for TCP), unknown ENOENT" \
	bash -c "is \"\$($CROOT bash -c 'wr $SYS/default_protocol newreno; wr $SYS/default_protocol reno
			 wr $SYS/default_protocol sack; cat $SYS/default_protocol
			 wr $SYS/default_protocol nosuchproto
			 wr /proc/sys/net/ipv4/tcp_congestion_control htcp
			 wr /proc/sys/net/ipv4/tcp_congestion_control reno' | xargs)\" \
		  'ok ok EPERM reno ENOENT EPERM ok' && is \"\$(cat $SYS/default_protocol)\" rack"

tap_check "allowed_protocols, read: nobody reads the host's" \
	bash -c "is \"\$($NOBODY cat $SYS/allowed_protocols)\" 'rack reno'"
tap_check "allowed_protocols, read: container root reads its namespace's (rack)" \
	bash -c "is \"\$($CROOT cat $SYS/allowed_protocols)\" rack"
tap_check "allowed_protocols, write: EACCES to nobody (as tcp_allowed_congestion_control), unchanged" \
	bash -c "is \"\$($NOBODY bash -c 'wr $SYS/allowed_protocols sack
			 wr /proc/sys/net/ipv4/tcp_allowed_congestion_control htcp' | xargs)\" 'EACCES EACCES' &&
		 is \"\$(cat $SYS/allowed_protocols)\" 'rack reno'"
tap_check "allowed_protocols, write: container root may allow what the host allows, sack EPERM, unchanged (TCP's list: the host's, EACCES)" \
	bash -c "is \"\$($CROOT bash -c 'wr $SYS/allowed_protocols \"rack reno newreno\"
			 wr $SYS/allowed_protocols \"reno sack\"; cat $SYS/allowed_protocols
			 wr /proc/sys/net/ipv4/tcp_allowed_congestion_control \"reno cubic htcp\"' | xargs)\" \
		  'ok EPERM rack reno newreno EACCES' &&
		 ! grep -qw htcp /proc/sys/net/ipv4/tcp_allowed_congestion_control"

tap_check "available_protocols: nobody reads every protocol; a write is EACCES, even root's (as TCP's)" \
	bash -c "is \"\$($NOBODY cat $SYS/available_protocols)\" 'newreno rack reno sack' &&
		 is \"\$($NOBODY bash -c 'wr $SYS/available_protocols x') \$(wr $SYS/available_protocols x) \$(wr /proc/sys/net/ipv4/tcp_available_congestion_control x)\" \
		   'EACCES EACCES EACCES'"
tap_check "available_protocols: container root reads the same; a write is EACCES" \
	bash -c "is \"\$($CROOT bash -c 'cat $SYS/available_protocols; wr $SYS/available_protocols x' | xargs)\" \
		  'newreno rack reno sack EACCES'"

# ---- netlink ----
tap_check "netlink stats-get: nobody" want "$T/nl.N" stats-get=ok
tap_check "netlink stats-get: container root" want "$T/nl.U" stats-get=ok
tap_check "netlink flow-get (dump): nobody" want "$T/nl.N" flow-get-dump=ok
tap_check "netlink flow-get (dump): container root" want "$T/nl.U" flow-get-dump=ok
tap_check "netlink prog-get: nobody, every program" want "$T/nl.N" prog-get-dump=ok \
	progs=newreno,rack,reno,sack
tap_check "netlink prog-get: container root, every program" want "$T/nl.U" prog-get-dump=ok \
	progs=newreno,rack,reno,sack
tap_check "netlink config-get and prog-default-get: nobody" want "$T/nl.N" config-get=ok \
	prog-default-get=ok
tap_check "netlink config-get and prog-default-get: container root" want "$T/nl.U" \
	config-get=ok prog-default-get=ok
tap_check "netlink config-set: EPERM to nobody, unchanged" want "$T/nl.N" config-set=EPERM \
	window=128
tap_check "netlink config-set: container root sets its namespace's, not the host's" bash -c \
	"want $T/nl.U config-set=ok window=8 && [ \$(cat $SYS/window) = 128 ]"
tap_check "netlink prog-default-set: EPERM to nobody, unchanged" want "$T/nl.N" \
	prog-default-set:newreno=EPERM default=rack
tap_check "netlink prog-default-set: container root: built-in, host-allowed ok, sack EPERM" bash -c \
	"want $T/nl.U prog-default-set:newreno=ok prog-default-set:reno=ok \
	 prog-default-set:sack=EPERM default=reno && [ \$(cat $SYS/default_protocol) = rack ]"
tap_check "netlink events group: EPERM to nobody (as MPTCP's events)" want "$T/nl.N" events=EPERM
tap_check "netlink events group: container root joins its namespace's" want "$T/nl.U" events=ok

# ---- programs ----
tap_check "prog load: EPERM to nobody (CAP_BPF, CAP_PERFMON), nothing attached" bash -c \
	"! $NOBODY $TONIC prog load build/bpf/ndp.bpf.o > $T/load.N 2>&1; cat $T/load.N;
	 grep -q 'Operation not permitted' $T/load.N && ! grep -qw ndp $SYS/available_protocols"
tap_check "prog load: EPERM to container root, nothing attached" bash -c \
	"! $CROOT $TONIC prog load build/bpf/ndp.bpf.o > $T/load.U 2>&1; cat $T/load.U;
	 grep -q 'Operation not permitted' $T/load.U && ! grep -qw ndp $SYS/available_protocols"
tap_check "prog replace: refused to nobody, reno still attached" bash -c \
	"! $NOBODY $TONIC prog replace build/bpf/reno.bpf.o > $T/rep.N 2>&1; cat $T/rep.N;
	 grep -q 'Permission denied\|Operation not permitted' $T/rep.N && grep -qw reno $SYS/available_protocols"
tap_check "prog replace: refused to container root, reno still attached" bash -c \
	"! $CROOT $TONIC prog replace build/bpf/reno.bpf.o > $T/rep.U 2>&1; cat $T/rep.U;
	 grep -q 'Permission denied\|Operation not permitted' $T/rep.U && grep -qw reno $SYS/available_protocols"
tap_check "prog unload: EACCES to nobody, sack still attached and pinned" bash -c \
	"! $NOBODY $TONIC prog unload sack > $T/unl.N 2>&1; cat $T/unl.N;
	 grep -q 'Permission denied' $T/unl.N && grep -qw sack $SYS/available_protocols &&
	 [ -e /sys/fs/bpf/tonic/sack ]"
tap_check "prog unload: EACCES to container root, sack still attached and pinned" bash -c \
	"! $CROOT $TONIC prog unload sack > $T/unl.U 2>&1; cat $T/unl.U;
	 grep -q 'Permission denied' $T/unl.U && grep -qw sack $SYS/available_protocols &&
	 [ -e /sys/fs/bpf/tonic/sack ]"

# ---- sockets ----
tap_check "socket(IPPROTO_TONIC), IPv4 and IPv6: nobody" want "$T/sock.N" socket4=ok socket6=ok
tap_check "socket(IPPROTO_TONIC), IPv4 and IPv6: container root" want "$T/sock.U" \
	socket4=ok socket6=ok
tap_check "TONIC_PROTOCOL: nobody: built-in, default, allowed ok; sack EPERM; unknown ENOENT" \
	want "$T/sock.N" TONIC_PROTOCOL:builtin=ok TONIC_PROTOCOL:builtin-rack=ok \
	TONIC_PROTOCOL:namespace-default=ok TONIC_PROTOCOL:allowed=ok \
	TONIC_PROTOCOL:restricted=EPERM TONIC_PROTOCOL:unknown=ENOENT
tap_check "TONIC_PROTOCOL: container root: any attached program; unknown ENOENT" \
	want "$T/sock.U" TONIC_PROTOCOL:builtin=ok TONIC_PROTOCOL:allowed=ok \
	TONIC_PROTOCOL:restricted=ok TONIC_PROTOCOL:unknown=ENOENT
tap_check "TCP_CONGESTION: nobody: sack EPERM on Tonic as htcp on TCP; allowed ok; a Linux name ok" \
	want "$T/sock.N" TCP_CONGESTION-tonic:restricted=EPERM TCP_CONGESTION-tcp:restricted=EPERM \
	TCP_CONGESTION-tonic:allowed=ok TCP_CONGESTION-tonic:builtin=ok \
	TCP_CONGESTION-tcp:allowed=ok TCP_CONGESTION-tonic:unknown=ENOENT \
	TCP_CONGESTION-tonic:linux-name=ok
tap_check "TCP_CONGESTION: container root: sack on Tonic as htcp on TCP" \
	want "$T/sock.U" TCP_CONGESTION-tonic:restricted=ok TCP_CONGESTION-tcp:restricted=ok \
	TCP_CONGESTION-tonic:unknown=ENOENT
tap_check "connected: nobody: TONIC_PROTOCOL EISCONN; TCP_CONGESTION sack EPERM as on TCP" \
	want "$T/sock.N" connected:TONIC_PROTOCOL=EISCONN \
	connected:TCP_CONGESTION-tonic:restricted=EPERM \
	connected:TCP_CONGESTION-tcp:restricted=EPERM \
	connected:TCP_CONGESTION-tonic:allowed=ok connected:protocol=rack connected:state=1
tap_check "connected: container root: TONIC_PROTOCOL EISCONN; TCP_CONGESTION sack ok as on TCP" \
	want "$T/sock.U" connected:TONIC_PROTOCOL=EISCONN \
	connected:TCP_CONGESTION-tonic:restricted=ok \
	connected:TCP_CONGESTION-tcp:restricted=ok connected:protocol=rack connected:state=1
tap_check "getsockopt TONIC_PROTOCOL, TONIC_INFO, TCP_INFO, TCP_CONGESTION: nobody" \
	want "$T/sock.N" gets=ok
tap_check "getsockopt TONIC_PROTOCOL, TONIC_INFO, TCP_INFO, TCP_CONGESTION: container root" \
	want "$T/sock.U" gets=ok
tap_check "TONIC_SEGMENT_SIZE, TONIC_FLUSH_DELAY, TONIC_WINDOW: nobody" \
	want "$T/sock.N" tonic-ints=ok
tap_check "TONIC_SEGMENT_SIZE, TONIC_FLUSH_DELAY, TONIC_WINDOW: container root" \
	want "$T/sock.U" tonic-ints=ok
tap_check "SOL_TCP integer options on Tonic, as on TCP: nobody" \
	want "$T/sock.N" tcp-ints-tonic=ok tcp-ints-tcp=ok
tap_check "SOL_TCP integer options on Tonic, as on TCP: container root" \
	want "$T/sock.U" tcp-ints-tonic=ok tcp-ints-tcp=ok
tap_check "bind to port $LOWPORT: EACCES to nobody, as TCP" \
	want "$T/sock.N" bind-low-tonic=EACCES bind-low-tcp=EACCES
tap_check "bind to port $LOWPORT: container root in its namespace, as TCP" \
	want "$T/sock.U" bind-low-tonic=ok bind-low-tcp=ok
tap_check "host root may make sack the default of a namespace it made" bash -c \
	"ip netns add $NS && ip -n $NS link set lo up &&
	 is \"\$(ip netns exec $NS bash -c 'wr $SYS/default_protocol sack')\" ok"
ip netns exec $NS $NOBODY python3 selftests/vm/priv_sock.py sack reno htcp $LOWPORT \
	>"$T/sock.X" 2>&1
sed 's/^/# sock.X: /' "$T/sock.X"
tap_check "TONIC_PROTOCOL: nobody may pick its namespace's default (sack), not reno" \
	want "$T/sock.X" TONIC_PROTOCOL:allowed=ok TONIC_PROTOCOL:restricted=EPERM \
	connected:protocol=sack

# ---- the rest ----
CGP=/sys/module/tonic/parameters/cgroup_protocol
tap_check "cgroup_protocol: EACCES to nobody (read and write), unchanged" bash -c \
	"is \"\$($NOBODY bash -c 'cat $CGP 2>/dev/null || echo EACCES; wr $CGP \"1 sack\"' | xargs)\" \
	   'EACCES EACCES' && [ -z \"\$(cat $CGP)\" ]"
tap_check "cgroup_protocol: EACCES to container root (read and write), unchanged" bash -c \
	"is \"\$($CROOT bash -c 'cat $CGP 2>/dev/null || echo EACCES; wr $CGP \"1 sack\"' | xargs)\" \
	   'EACCES EACCES' && [ -z \"\$(cat $CGP)\" ]"
# run_state: the cgroups and the pinned shim `tonic run` makes (what
# earlier test files left may still be going away: compare, do not
# expect none).
run_state() {
	ls -d /sys/fs/cgroup/tonic-run.* /sys/fs/bpf/tonic/shim 2>/dev/null
	cat $CGP
}
export -f run_state
export CGP
run_state >"$T/run.before"
sed 's/^/# before tonic run: /' "$T/run.before"
tap_check "tonic run: refused to nobody, nothing left" bash -c \
	"! $NOBODY $TONIC run -- true 2>&1; run_state | diff $T/run.before -"
tap_check "tonic run: refused to container root (EPERM from bpf), nothing left" bash -c \
	"! $CROOT $TONIC run -- true > $T/run.U 2>&1; cat $T/run.U;
	 grep -q 'Operation not permitted\|Permission denied' $T/run.U &&
	 run_state | diff $T/run.before -"
DBG=/sys/kernel/debug/tonic_bpf_sim
tap_check "debugfs tonic_bpf_sim: EACCES to nobody" bash -c \
	"[ -e $DBG ] && is \"\$($NOBODY bash -c 'wr $DBG \"start reno 10\"')\" EACCES"
tap_check "debugfs tonic_bpf_sim: EACCES to container root" bash -c \
	"is \"\$($CROOT bash -c 'wr $DBG \"start reno 10\"')\" EACCES"
tap_check "/proc/net/tonic_stat and module parameters: nobody reads them" bash -c \
	"$NOBODY sh -c 'grep -q ^SocketsAllocated /proc/net/tonic_stat &&
	 cat /sys/module/tonic/parameters/protocol /sys/module/tonic/parameters/encap'"
tap_check "/proc/net/tonic_stat and module parameters: container root reads its namespace's" bash -c \
	"$CROOT sh -c 'grep -q \"^SocketsAllocated\" /proc/net/tonic_stat &&
	 cat /sys/module/tonic/parameters/protocol /sys/module/tonic/parameters/encap'"

tap_check "unload reno and sack, rmmod tonic" bash -c \
	"$TONIC prog unload reno && $TONIC prog unload sack && ip netns del $NS && rmmod_tonic"
tap_done

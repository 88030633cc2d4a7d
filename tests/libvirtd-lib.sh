# tests/libvirtd-lib.sh - a system libvirtd for a test, sourced by the
# tests/libvirtd-*.sh scripts. Call them under `unshare -m --propagation
# private`: libvirtd_start bind-mounts its own copy of /etc/libvirt (a
# qemu.conf with the embedded driver's settings) and tmpfs on libvirt's
# run/state/log directories, so the machine's own libvirt configuration and
# state are never touched and nothing outlives the namespace.

# libvirtd_etc DIR: a copy of /etc/libvirt in DIR/etc whose qemu.conf has the
# embedded driver's settings (docs/architecture.md), for a test's daemon.
libvirtd_etc() {
	mkdir -p "$1/etc"
	cp -a /etc/libvirt/. "$1/etc/"
	cat >"$1/etc/qemu.conf" <<'CONF'
# memhp-lab test libvirtd: the embedded driver's settings (docs/architecture.md)
stdio_handler = "file"
security_driver = "none"
cgroup_controllers = [ ]
namespaces = [ ]
user = "root"
group = "root"
remember_owner = 0
CONF
}

# libvirtd_start DIR: configuration in DIR/etc, log DIR/libvirtd.log; 0 once its socket is there.
libvirtd_start() {
	local dir=$1 d
	libvirtd_etc "$dir"
	mount --bind "$dir/etc" /etc/libvirt || return 2
	for d in /run/libvirt /var/lib/libvirt /var/log/libvirt /var/cache/libvirt; do
		mkdir -p "$d" && mount -t tmpfs tmpfs "$d" || return 2
	done
	LIBVIRT_LOG_OUTPUTS="3:file:$dir/libvirtd.log" /usr/sbin/libvirtd -d -p "$dir/libvirtd.pid" || return 2
	for _ in $(seq 1 100); do [ -S /run/libvirt/libvirt-sock ] && break; sleep 0.1; done
	[ -S /run/libvirt/libvirt-sock ] || { echo "libvirtd did not create its socket" >&2; return 2; }
}

# libvirtd_stop DIR: it removes its pid file when it exits, so look for it by its command line.
libvirtd_stop() {
	local dir=$1
	pkill -TERM -f "libvirtd -d -p $dir/libvirtd.pid"
	for _ in $(seq 1 100); do pgrep -f "libvirtd -d -p $dir/libvirtd.pid" >/dev/null || break; sleep 0.1; done
	pkill -KILL -f "libvirtd -d -p $dir/libvirtd.pid"
}

# fleet_host_start DIR unix|tcp [--show PATH]... HIDE...: a libvirt host of
# its own for the fleet tests (tests/libvirtd-host.sh) in PID, mount and, for
# tcp, network namespaces of its own; tcp: reached over a veth pair made here
# (10.213.N.1 here, .2 there, a /30 on this pair only). Each --show PATH (a
# directory or file) stays visible there at the same path, even under the
# host's own /tmp: what a migration peer must see of this machine (the
# guest's kernel and initramfs, docs/lifecycle.md). Prints its URI once it
# answers. Its unshare's pid is in DIR/unshare.pid, the veth's name here in
# DIR/veth, the shown paths in DIR/show (NUL-separated).
fleet_host_start() {
	local dir=$1 mode=$2 ns=() addr=unix peer=- hostif= net= tag pid child= uri try
	shift 2
	mkdir -p "$dir"
	: >"$dir/show"
	while [ "${1-}" = --show ]; do
		printf '%s\0' "$(realpath "$2")" >>"$dir/show"
		shift 2
	done
	# Twice at most: once in six runs the namespace's first process was gone
	# when its veth end was moved into it (RTNETLINK: No such process).
	for try in 1 2; do
		if [ "$mode" = tcp ]; then
			net=$((RANDOM % 250 + 1)) tag=$((($$ + RANDOM) % 100000))
			ns=(-n) addr=10.213.$net.2 peer=mhg$tag hostif=mhh$tag
		fi
		unshare -m -p --fork --kill-child --mount-proc --propagation private "${ns[@]}" \
			bash "$(dirname "${BASH_SOURCE[0]}")/libvirtd-host.sh" "$dir" "$addr" "$peer" "$@" \
			</dev/null >"$dir/host.out" 2>&1 &
		pid=$!
		echo "$pid" >"$dir/unshare.pid"
		for _ in $(seq 1 50); do child=$(pgrep -P "$pid") && break; sleep 0.1; done
		echo "$child" >"$dir/ns.pid"
		[ "$mode" = tcp ] || break
		if [ -n "$child" ] && ip link add "$hostif" type veth peer name "$peer" &&
			echo "$hostif" >"$dir/veth" && ip link set "$peer" netns "$child" &&
			ip addr add "10.213.$net.1/30" dev "$hostif" && ip link set "$hostif" up; then
			break
		fi
		echo "cannot make the veth pair for host $dir (try $try; its output: $(head -c 300 "$dir/host.out"))" >&2
		fleet_host_kill "$dir"
		[ "$try" = 2 ] && return 2
	done
	if [ "$mode" = tcp ]; then
		uri="qemu+tcp://$addr/system"
	else
		uri="qemu+unix:///system?socket=$dir/sock/libvirt-sock"
	fi
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		if timeout 5 virsh -q -c "$uri" uri >/dev/null 2>&1; then
			# The namespace's PID 1 again, now that its daemon answers: the
			# first look can catch a child of unshare that is gone a moment later
			# (the veth retry above; nsenter -t on it then finds no /proc/PID).
			child=$(pgrep -P "$pid" | head -n 1) && echo "$child" >"$dir/ns.pid"
			echo "$uri"
			return 0
		fi
		sleep 0.2
	done
	echo "host $dir did not answer at $uri (its log: $dir/libvirtd.log, $dir/host.out)" >&2
	return 2
}

# What a migration peer (run --peer) or a daemon's host (run --uri) must see
# of this machine, at the same paths: the guest image memhp-lab boots and the
# kernel cache's artifacts (docs/lifecycle.md, "What the peer needs"). The
# fleet's hosts see neither (uploads).
peer_show=(--show "${B:-build}/initramfs.cpio" --show "${MEMHP_CACHE:-$HOME/.cache/memhp-lab}/kernel")

# peer_sees DIR PATH...: the host of DIR (fleet_host_start) can read every PATH.
peer_sees() {
	local dir=$1
	shift
	nsenter -t "$(cat "$dir/ns.pid")" -m -- sh -c 'for p; do test -r "$p" || { echo "peer cannot read $p" >&2; exit 1; }; done' _ "$@"
}

# fleet_host_kill DIR: the host dies at once (its unshare killed: with
# --kill-child the namespace's PID 1 goes, and with it the daemon and its QEMU).
fleet_host_kill() {
	local dir=$1 pid
	pid=$(cat "$dir/unshare.pid" 2>/dev/null) || return 0
	# gone already, or the veth gone with its namespace, is not an error: a
	# caller under set -e (tools/bench-fleet.sh's EXIT trap) must not fail here
	kill -KILL "$pid" 2>/dev/null || :
	for p in "$pid" $(cat "$dir/ns.pid" 2>/dev/null); do
		for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
	if [ -s "$dir/veth" ]; then ip link del "$(cat "$dir/veth")" 2>/dev/null || :; fi
	rm -f "$dir/unshare.pid" "$dir/ns.pid" "$dir/veth"
	return 0
}

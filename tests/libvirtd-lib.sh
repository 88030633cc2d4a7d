# tests/libvirtd-lib.sh - a system libvirtd for a test, sourced by the
# tests/libvirtd-*.sh scripts. Call them under `unshare -m --propagation
# private`: libvirtd_start bind-mounts its own copy of /etc/libvirt (a
# qemu.conf with the embedded driver's settings) and tmpfs on libvirt's
# run/state/log directories, so the machine's own libvirt configuration and
# state are never touched and nothing outlives the namespace.

# libvirtd_start DIR: configuration in DIR/etc, log DIR/libvirtd.log; 0 once its socket is there.
libvirtd_start() {
	local dir=$1 d
	mkdir -p "$dir/etc"
	cp -a /etc/libvirt/. "$dir/etc/"
	cat >"$dir/etc/qemu.conf" <<'CONF'
# memhp-lab test libvirtd: the embedded driver's settings (docs/architecture.md)
stdio_handler = "file"
security_driver = "none"
cgroup_controllers = [ ]
namespaces = [ ]
user = "root"
group = "root"
remember_owner = 0
CONF
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

#!/usr/bin/python3
"""tests/oracle.py - an independent look at a trial's virtio-mem device.

Usage: oracle.py URI DOMAIN_PREFIX OUT.jsonl [TIMEOUT_S]

Polls the libvirt URI (libvirt-python, not memhp-lab's C code) for a domain
whose name starts with DOMAIN_PREFIX and, every 0.2 s while it runs, appends
one JSON line to OUT: {"t": seconds since first seen, "current_kib": ...,
"requested_kib": ...} from the live XML's <memory model='virtio-mem'>, which
libvirt keeps up to date from QEMU's size-change events. Exits when the
domain is gone after having been seen, or after TIMEOUT_S (default 180).
"""
import json
import sys
import time
import xml.etree.ElementTree as ET

import libvirt


def sizes(dom):
    root = ET.fromstring(dom.XMLDesc(0))
    mem = root.find("./devices/memory[@model='virtio-mem']/target")
    if mem is None:
        return None
    cur = mem.find("current")
    req = mem.find("requested")
    return (int(cur.text) if cur is not None else None,
            int(req.text) if req is not None else None)


def main():
    uri, prefix, out = sys.argv[1], sys.argv[2], sys.argv[3]
    timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 180.0
    libvirt.registerErrorHandler(lambda ctx, err: None, None)
    conn = libvirt.open(uri)
    start, seen = time.monotonic(), None
    with open(out, "w") as f:
        while time.monotonic() - start < timeout:
            doms = [d for d in conn.listAllDomains(libvirt.VIR_CONNECT_LIST_DOMAINS_ACTIVE)
                    if d.name().startswith(prefix)]
            if not doms:
                if seen is not None:
                    return 0
                time.sleep(0.1)
                continue
            try:
                s = sizes(doms[0])
            except libvirt.libvirtError as e:
                print("oracle: %.2f s: %s" % (time.monotonic() - start, e), file=sys.stderr)
                time.sleep(0.2)
                continue
            if seen is None:
                seen = time.monotonic()
            if s:
                f.write(json.dumps({"t": round(time.monotonic() - seen, 2),
                                    "current_kib": s[0], "requested_kib": s[1]}) + "\n")
                f.flush()
            time.sleep(0.2)
    print("oracle: timed out after %.0f s (domain %s %s)" %
          (timeout, prefix, "seen" if seen else "never seen"), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())

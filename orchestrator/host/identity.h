/* identity.h - what a host is (hostname, kernel, libvirt, QEMU, CPU, memory), for records. */
#ifndef MHL_IDENTITY_H
#define MHL_IDENTITY_H

#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <stdbool.h>

/*
 * This machine: {hostname, kernel, kernel_build, machine, cpu_model, cpus,
 * memory_bytes, libvirt_built_with, qemu} (run.json's host_identity). It
 * calls no libvirt API (libvirt is not initialized yet when run.json is
 * written). Fields that cannot be read are left out.
 */
json_object *mhlHostIdentityLocal(void);

/*
 * The host behind @conn, as libvirt tells it: hostname, cpu_model, cpus,
 * memory_bytes, libvirt (the daemon's library), qemu (the driver's
 * hypervisor version); with @local (the connection is to this machine)
 * also kernel, kernel_build and machine from uname (a trial's
 * host_identity).
 */
json_object *mhlHostIdentityConn(virConnectPtr conn, bool local);

#endif

/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, libfabric netmod: its path and the reasons a window's
 * target has or lacks it, for the path table (ch4's mpid_notify_paths.h).
 */
#ifndef OFI_NOTIFY_PATHS_H_INCLUDED
#define OFI_NOTIFY_PATHS_H_INCLUDED

#define MPIDI_OFI_NOTIFY_PATHS(X) \
    X(CQ_DATA, cq_data, "cq-data", false, "as libfabric remote CQ data") \
    X(EAGER_TAGGED, eager_tagged, "eager-tagged", false, \
      "in eager messages with their data, as libfabric tagged messages (ofi_notify_tagged.c)") \
    X(EAGER_WRITE, eager_write, "eager-write", false, \
      "in eager puts written without the provider's acknowledgement (ofi_notify_wire.c)")

#define MPIDI_OFI_NOTIFY_REASONS(X) \
    X(PROVIDER_ORDER, "provider-order", "remote CQ data, ordered by the provider (FI_ORDER_WAW)") \
    X(COMPLETION_ORDER, "completion-order", "remote CQ data, ordered by completion") \
    X(NO_MEMORY, "no-memory", "the target exposes no registered memory") \
    X(RMA_DISABLED, "rma-disabled", "RMA is disabled in the OFI netmod") \
    X(UNREGISTERED, "unregistered", "window memory is not registered with the provider") \
    X(OWN_ENDPOINT, "own-endpoint", "the window has its own endpoint, opened without write ordering") \
    X(TOO_MANY, "too-many-processes", "more than 2^19 processes") \
    X(PROV_NO_RMA, "provider-no-rma", "the provider has no FI_RMA") \
    X(PROV_CQ_DATA, "provider-cq-data-size", "the provider's cq_data_size is below 8 bytes") \
    X(PROV_RX_CQ_DATA, "provider-rx-cq-data", "remote CQ data would consume posted receive buffers (FI_RX_CQ_DATA)") \
    X(PROV_SHM, "provider-shm", "the shm provider holds every write to a peer behind an unmatched large send") \
    X(NO_SLOT, "no-window-slot", "all 256 window slots are in use")

#endif /* OFI_NOTIFY_PATHS_H_INCLUDED */

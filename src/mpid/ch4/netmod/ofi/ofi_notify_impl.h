/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over libfabric: what ofi_notify.c (accesses),
 * ofi_notify_wire.c (the CQ data words: sent, received; the eager path's
 * write carrier),
 * ofi_notify_order.c (notifications in issue order), ofi_notify_tagged.c
 * (the eager path's tagged carrier) and ofi_notify_win.c share.
 */
#ifndef OFI_NOTIFY_IMPL_H_INCLUDED
#define OFI_NOTIFY_IMPL_H_INCLUDED

#include "ofi_impl.h"
#include "ofi_notify.h"
#include "ofi_notify_word.h"

typedef MPIDI_OFI_notify_pending_t pending_t;

/* the rank width of the window's CQ data words (ofi_notify_word.h; the
 * CVAR is ofi_notify_wire.c's); inline: every put and arrival asks */
MPL_STATIC_INLINE_PREFIX int MPIDI_OFI_notify_rank_bits(MPIR_Win * win)
{
    int r = MPIDI_OFI_nw_rank_bits(win->comm_ptr->local_size);
    return unlikely(MPIR_CVAR_NOTIFY_OFI_RANK_BITS > r) ?
        MPL_MIN(MPIR_CVAR_NOTIFY_OFI_RANK_BITS, MPIDI_OFI_NW_RANK_BITS) : r;
}

/* ofi_notify_wire.c */
fi_addr_t MPIDI_OFI_notify_dest(MPIR_Win * win, int target);
int MPIDI_OFI_notify_write(MPIR_Win * win, int target, const void *buf, size_t len,
                           uint64_t raddr, uint64_t key, uint64_t data, uint64_t flags,
                           MPIR_Request ** track);
int MPIDI_OFI_notify_emit_word(MPIR_Win * win, int target, uint64_t word, MPIR_Request ** track);
int MPIDI_OFI_notify_maybe_stray(MPIR_Win * win, MPIDI_OFI_notify_win_t * nw, int target);

/* ofi_notify_tagged.c: whether this process's eager messages use the
 * tagged carrier (after MPIDI_OFI_notify_tagged_init) */
bool MPIDI_OFI_notify_tagged_on(void);
/* post again the receives whose messages were delivered (from progress) */
int MPIDI_OFI_notify_tagged_repost(void);
/* ofi_notify_wire.c: the write carrier, chosen before the tagged one (once,
 * at the first window of the path); whether it is on */
bool MPIDI_OFI_notify_writes_init(void);
bool MPIDI_OFI_notify_writes_on(void);

/* ofi_notify_order.c */
int MPIDI_OFI_notify_after(MPIR_Win * win, int target, const uint64_t * words, int nwords,
                           MPIR_Request * req);

/* n notification words (no origin buffer: nothing for flush_local to wait for) */
MPL_STATIC_INLINE_PREFIX void MPIDI_OFI_notify_count_issued(MPIR_Win * win, int n)
{
    while (n-- > 0)
        MPIDI_OFI_win_cntr_incr_inject(win);
}

#endif /* OFI_NOTIFY_IMPL_H_INCLUDED */

/*
 * Notified Access in ch4, for ch4's own files: what the device does around
 * its transports (ch4_notify.c).
 */
#ifndef CH4_NOTIFY_H_INCLUDED
#define CH4_NOTIFY_H_INCLUDED

/* MPIR_CVAR_NOTIFY_VERBOSE: the window's line, printed by the first
 * process of its group once every transport's window hook has run
 * (mpidig_win.c): the path table, then what the netmod adds about its own
 * path (MPIDI_NM_notify_win_describe). */
void MPIDI_Notify_win_report(MPIR_Win * win);

#endif /* CH4_NOTIFY_H_INCLUDED */

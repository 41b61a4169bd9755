##
## Notified Access: device-independent matching (see include/mpir_notify.h
## and, for how the files divide it, src/mpi/notify/notify_impl.h)
##

mpi_core_sources += src/mpi/notify/notify_win.c src/mpi/notify/notify_queue.c \
                    src/mpi/notify/notify_order.c src/mpi/notify/notify_request.c \
                    src/mpi/notify/notify_path.c \
                    src/mpi/notify/notify_counter.c src/mpi/notify/notify_probe.c \
                    src/mpi/notify/notify_stats.c src/mpi/notify/notify_events.c

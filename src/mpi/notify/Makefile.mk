##
## Notified Access: device-independent matching (see include/mpir_notify.h)
##

mpi_core_sources += src/mpi/notify/notify.c src/mpi/notify/notify_path.c \
                    src/mpi/notify/notify_counter.c src/mpi/notify/notify_probe.c \
                    src/mpi/notify/notify_stats.c src/mpi/notify/notify_callback.c

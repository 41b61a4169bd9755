! test/tools/natrace_prog.c in Fortran, for natrace's test (test/tools/natrace.sh): the
! same accesses, so that test/tools/natrace_check.py --prog natrace_prog checks
! its traces too.  Through "use mpi_f08" (whose MPI_Init, MPI_Wait,
! MPI_Barrier and MPI_Finalize call PMPI_* directly: natrace wraps their
! mpi_f08 entry points), "use mpi" when compiled with -DUSE_MPI, or mpif.h
! with -DUSE_MPIF_H (whose bindings call the C functions natrace wraps).
! 2 ranks.
!
! Rank 0 does 5 MPI_Put_notify (tag 3) then 2 MPIX_Put_notify (counter 0)
! to rank 1, flushing each and pausing 2 ms between them.  Rank 1 matches
! the tagged ones with one persistent request (MPI_Notify_init, count 1):
! 5 x (MPI_Start, MPI_Wait), then polls counter 0 until it reads 2.
! Prints "No Errors" from rank 0.  MPI errors are fatal (the default error
! handler), so the ierror arguments are left out under mpi_f08.
#ifdef USE_MPIF_H
#define USE_MPI
#endif
program natrace_prog
#if defined(USE_MPIF_H)
    implicit none
    include 'mpif.h'
#elif defined(USE_MPI)
    use mpi
    implicit none
#else
    use mpi_f08
    implicit none
#endif
    integer, parameter :: tag = 3, puts = 5, counted = 2, nbytes = 64
#ifdef USE_MPI
    integer :: win, req, ierr
    integer :: st(MPI_STATUS_SIZE)
#else
    type(MPI_Win) :: win
    type(MPI_Request) :: req
    type(MPI_Status) :: st
#endif
    integer(kind=MPI_ADDRESS_KIND) :: winsize
    integer(kind=MPI_COUNT_KIND) :: value
    character :: buf(2 * nbytes), data(nbytes)
    integer :: rank, nprocs, i, errs

#ifdef USE_MPI
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
#else
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
#endif
    if (nprocs /= 2) then
        if (rank == 0) print '(a)', 'natrace_prog: run with 2 processes'
#ifdef USE_MPI
        call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
#else
        call MPI_Abort(MPI_COMM_WORLD, 1)
#endif
    end if
    errs = 0
    winsize = 2 * nbytes
    data = achar(1)
#ifdef USE_MPI
    call MPI_Win_create(buf, winsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    call MPIX_Win_create_notify(win, 1, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_lock_all(0, win, ierr)
#else
    call MPI_Win_create(buf, winsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win)
    call MPIX_Win_create_notify(win, 1)
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_Win_lock_all(0, win)
#endif
    if (rank == 0) then
        do i = 1, puts
            call pause_ms()
#ifdef USE_MPI
            call MPI_Put_notify(data, nbytes, MPI_BYTE, 1, 0_MPI_ADDRESS_KIND, nbytes, MPI_BYTE, &
                                win, tag, ierr)
            call MPI_Win_flush(1, win, ierr)
#else
            call MPI_Put_notify(data, nbytes, MPI_BYTE, 1, 0_MPI_ADDRESS_KIND, nbytes, MPI_BYTE, &
                                win, tag)
            call MPI_Win_flush(1, win)
#endif
        end do
        do i = 1, counted
            call pause_ms()
#ifdef USE_MPI
            call MPIX_Put_notify(data, nbytes, MPI_BYTE, 1, int(nbytes, MPI_ADDRESS_KIND), &
                                 nbytes, MPI_BYTE, 0, win, ierr)
            call MPI_Win_flush(1, win, ierr)
#else
            call MPIX_Put_notify(data, nbytes, MPI_BYTE, 1, int(nbytes, MPI_ADDRESS_KIND), &
                                 nbytes, MPI_BYTE, 0, win)
            call MPI_Win_flush(1, win)
#endif
        end do
    else
        value = 0
#ifdef USE_MPI
        call MPI_Notify_init(win, 0, tag, 1, req, ierr)
        do i = 1, puts
            call MPI_Start(req, ierr)
            call MPI_Wait(req, st, ierr)
            if (st(MPI_SOURCE) /= 0 .or. st(MPI_TAG) /= tag) errs = errs + 1
        end do
        do while (value < counted)
            call MPIX_Win_get_notify(win, 0, value, ierr)
        end do
        call MPI_Request_free(req, ierr)
#else
        call MPI_Notify_init(win, 0, tag, 1, req)
        do i = 1, puts
            call MPI_Start(req)
            call MPI_Wait(req, st)
            if (st%MPI_SOURCE /= 0 .or. st%MPI_TAG /= tag) errs = errs + 1
        end do
        do while (value < counted)
            call MPIX_Win_get_notify(win, 0, value)
        end do
        call MPI_Request_free(req)
#endif
    end if
#ifdef USE_MPI
    call MPI_Win_unlock_all(win, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPIX_Win_free_notify(win, ierr)
    call MPI_Win_free(win, ierr)
    call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
#else
    call MPI_Win_unlock_all(win)
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPIX_Win_free_notify(win)
    call MPI_Win_free(win)
    call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
#endif
    if (rank == 0) then
        if (errs == 0) then
            print '(a)', 'No Errors'
        else
            print '(a, i0, a)', 'Found ', errs, ' errors'
        end if
    end if
#ifdef USE_MPI
    call MPI_Finalize(ierr)
#else
    call MPI_Finalize()
#endif

contains

    ! 2 ms, so that rank 1's waits last long enough to be seen
    subroutine pause_ms()
        integer(kind=8) :: c0, c, rate
        call system_clock(c0, rate)
        do
            call system_clock(c)
            if ((c - c0) * 1000 >= 2 * rate) exit
        end do
    end subroutine pause_ms
end program natrace_prog

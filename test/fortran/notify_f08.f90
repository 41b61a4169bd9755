! Notified Access from Fortran through "use mpi_f08" (the bindings that
! maint/gen_binding_f08.py makes from src/binding/c/notify_api.txt and
! notify_counter_api.txt).  Two ranks: rank 0 is the origin, rank 1 the
! target; further ranks only take part in the collective calls.
!
!   1. MPI_Put_notify of 100 integers with tag 7 under MPI_Win_lock_all,
!      matched at the target by MPI_Notify_init / MPI_Start / MPI_Wait;
!      status (source, tag, byte count) and data checked.
!   2. Ordinary MPI_Put and MPI_Accumulate to the same location after a
!      flush, read back by the origin with MPI_Get; then
!      MPI_Accumulate_notify matched by a request with MPI_ANY_SOURCE /
!      MPI_ANY_TAG, and a zero-size MPI_Put_notify with tag
!      MPI_NOTIFY_TAG_UB.
!   3. The counter dialect: MPIX_Win_create_notify, two MPIX_Put_notify to
!      counter 1 (mpi_f08 passes notification_idx unchanged: counters count
!      from 0, as in C), MPIX_Win_get_notify / MPIX_Win_set_notify,
!      MPIX_Win_free_notify; a tagged MPI_Put_notify through the same window
!      restarts the persistent request of step 1.
!   4. The MPI Forum draft's calls: MPI_Win_set_num_notify, MPI_Put_notify
!      and MPI_Rget_notify in the draft's spelling (notification_idx before
!      win, resolved by the generic interface), MPI_Win_get_notify_value,
!      MPI_Win_reset_notify_value, the counter bound attributes.
!
! Prints "No Errors" from rank 0 when every check passed, otherwise
! "Found N errors" and MPI_Abort (non-zero exit).  MPI errors are fatal
! (the default error handler), so the ierror arguments are left out.
program notify_f08
    use, intrinsic :: iso_c_binding, only : c_ptr, c_f_pointer
    use mpi_f08
    implicit none

    integer, parameter :: n = 100
    integer, parameter :: tag = 7, tag_acc = 8
    integer, parameter :: ctr = 1       ! counter used in step 3 (of 0 and 1)

    type(MPI_Win) :: win
    type(MPI_Request) :: req, req_any, req_ub
    type(MPI_Status) :: status
    type(c_ptr) :: baseptr
    ! the window: elements 1..n for steps 1 and 2, n+1..2n for step 3
    integer, pointer, asynchronous :: wbuf(:)
    integer, asynchronous :: src(n), src2(n), ones(n), got(n)
    integer :: rank, nprocs, i, isize, nbytes, errs, toterrs
    integer(kind=MPI_ADDRESS_KIND) :: winsize, attr
    logical :: flag
    integer(kind=MPI_COUNT_KIND) :: value
    double precision :: t0

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
    errs = 0
    if (nprocs < 2) then
        print '(a)', 'notify_f08: needs at least 2 processes'
        call MPI_Abort(MPI_COMM_WORLD, 1)
    end if

    isize = storage_size(0) / 8         ! bytes of a default INTEGER
    winsize = int(2 * n * isize, MPI_ADDRESS_KIND)
    call MPI_Win_allocate(winsize, isize, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win)
    call c_f_pointer(baseptr, wbuf, [2 * n])
    wbuf = -1
    src = [(3 * i + 1, i = 1, n)]

    ! ---- 1. MPI_Put_notify, tag 7 -------------------------------------------
    call MPI_Win_lock_all(0, win)
    call MPI_Win_sync(win)              ! wbuf = -1 is public before any access
    call MPI_Barrier(MPI_COMM_WORLD)
    if (rank == 0) then
        call MPI_Put_notify(src, n, MPI_INTEGER, 1, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, &
                            win, tag)
        call MPI_Win_flush(1, win)
    else if (rank == 1) then
        call MPI_Notify_init(win, 0, tag, 1, req)
        call MPI_Start(req)
        call MPI_Wait(req, status)
        call check(status%MPI_SOURCE == 0, 'step 1: status%MPI_SOURCE /= 0')
        call check(status%MPI_TAG == tag, 'step 1: status%MPI_TAG /= 7')
        call MPI_Get_count(status, MPI_BYTE, nbytes)
        call check(nbytes == n * isize, 'step 1: byte count of the notification')
        call MPI_Win_sync(win)
        call MPI_F_sync_reg(wbuf)
        call check(all(wbuf(1:n) == [(3 * i + 1, i = 1, n)]), &
                   'step 1: data of MPI_Put_notify not in the window when notified')
        call check(all(wbuf(n + 1:2 * n) == -1), 'step 1: MPI_Put_notify wrote outside its target')
    end if
    call MPI_Barrier(MPI_COMM_WORLD)    ! rank 1 has checked before step 2 overwrites

    ! ---- 2. ordinary RMA to the same location after a flush -----------------
    if (rank == 0) then
        src2 = [(1000 + i, i = 1, n)]
        ones = 1
        call MPI_Put(src2, n, MPI_INTEGER, 1, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, win)
        call MPI_Win_flush(1, win)
        call MPI_Accumulate(ones, n, MPI_INTEGER, 1, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, &
                            MPI_SUM, win)
        call MPI_Win_flush(1, win)
        got = 0
        call MPI_Get(got, n, MPI_INTEGER, 1, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, win)
        call MPI_Win_flush(1, win)
        call MPI_F_sync_reg(got)
        call check(all(got == [(1001 + i, i = 1, n)]), &
                   'step 2: MPI_Get after MPI_Put_notify, MPI_Put, MPI_Accumulate')
        ! a notified accumulate on top of them
        call MPI_Accumulate_notify(ones, n, MPI_INTEGER, 1, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, &
                                   MPI_SUM, win, tag_acc)
        call MPI_Win_flush(1, win)
    else if (rank == 1) then
        call MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, req_any)
        call MPI_Start(req_any)
        call MPI_Wait(req_any, status)
        call check(status%MPI_SOURCE == 0, 'step 2: status%MPI_SOURCE /= 0')
        call check(status%MPI_TAG == tag_acc, 'step 2: status%MPI_TAG /= 8')
        call MPI_Get_count(status, MPI_BYTE, nbytes)
        call check(nbytes == n * isize, 'step 2: byte count of the accumulate notification')
        call MPI_Win_sync(win)
        call MPI_F_sync_reg(wbuf)
        call check(all(wbuf(1:n) == [(1002 + i, i = 1, n)]), &
                   'step 2: MPI_Put, MPI_Accumulate, MPI_Accumulate_notify result')
        call MPI_Request_free(req_any)
    end if
    call MPI_Barrier(MPI_COMM_WORLD)    ! req_any is gone before the next notification

    ! zero-size put: only the notification, with the largest tag
    if (rank == 0) then
        call MPI_Put_notify(src, 0, MPI_INTEGER, 1, 0_MPI_ADDRESS_KIND, 0, MPI_INTEGER, &
                            win, MPI_NOTIFY_TAG_UB)
        call MPI_Win_flush(1, win)
    else if (rank == 1) then
        call MPI_Notify_init(win, 0, MPI_NOTIFY_TAG_UB, 1, req_ub)
        call MPI_Start(req_ub)
        call MPI_Wait(req_ub, status)
        call check(status%MPI_TAG == MPI_NOTIFY_TAG_UB, 'step 2: tag MPI_NOTIFY_TAG_UB')
        call MPI_Get_count(status, MPI_BYTE, nbytes)
        call check(nbytes == 0, 'step 2: byte count of a zero-size MPI_Put_notify')
        call MPI_Request_free(req_ub)
    end if
    call MPI_Win_unlock_all(win)

    ! ---- 3. counters --------------------------------------------------------
    call MPIX_Win_create_notify(win, 2)                 ! collective
    call MPIX_Win_get_notify(win, ctr, value)
    call check(value == 0, 'step 3: a new counter is not 0')
    call MPI_Win_lock_all(0, win)
    if (rank == 0) then
        src2 = [(5000 + i, i = 1, n)]
        call MPIX_Put_notify(src2, n / 2, MPI_INTEGER, 1, int(n, MPI_ADDRESS_KIND), n / 2, &
                             MPI_INTEGER, ctr, win)
        call MPIX_Put_notify(src2(n / 2 + 1:), n - n / 2, MPI_INTEGER, 1, &
                             int(n + n / 2, MPI_ADDRESS_KIND), n - n / 2, MPI_INTEGER, ctr, win)
        ! a tagged notification through the same window: never counted
        call MPI_Put_notify(src, n, MPI_INTEGER, 1, 0_MPI_ADDRESS_KIND, n, MPI_INTEGER, &
                            win, tag)
        call MPI_Win_flush(1, win)
    else if (rank == 1) then
        t0 = MPI_Wtime()
        do
            call MPIX_Win_get_notify(win, ctr, value)  ! makes progress
            if (value >= 2) exit
            if (MPI_Wtime() - t0 > 120d0) then
                print '(a,i0)', 'step 3: timed out waiting for counter 1, value ', value
                call MPI_Abort(MPI_COMM_WORLD, 1)
            end if
        end do
        call check(value == 2, 'step 3: counter 1 counted more than the two puts')
        call MPIX_Win_get_notify(win, 0, value)
        call check(value == 0, 'step 3: counter 0 was counted')
        call MPI_Win_sync(win)
        call MPI_F_sync_reg(wbuf)
        call check(all(wbuf(n + 1:2 * n) == [(5000 + i, i = 1, n)]), &
                   'step 3: data of MPIX_Put_notify not in the window when counted')
        call MPIX_Win_set_notify(win, ctr, 0_MPI_COUNT_KIND)
        call MPIX_Win_get_notify(win, ctr, value)
        call check(value == 0, 'step 3: MPIX_Win_set_notify(0)')
        ! the persistent request of step 1, started again
        call MPI_Start(req)
        call MPI_Wait(req, status)
        call check(status%MPI_SOURCE == 0 .and. status%MPI_TAG == tag, &
                   'step 3: status of the restarted request')
        call MPI_Win_sync(win)
        call MPI_F_sync_reg(wbuf)
        call check(all(wbuf(1:n) == [(3 * i + 1, i = 1, n)]), &
                   'step 3: data of the tagged MPI_Put_notify')
        call MPIX_Win_get_notify(win, ctr, value)
        call check(value == 0, 'step 3: a tagged notification was counted')
    end if
    call MPI_Win_unlock_all(win)
    call MPIX_Win_free_notify(win)                      ! collective

    ! ---- 4. the draft's calls -----------------------------------------------
    call MPI_Win_set_num_notify(win, MPI_INFO_NULL, 2)  ! collective
    call MPI_Win_get_num_notify(win, 1, i)
    call check(i == 2, 'step 4: MPI_Win_get_num_notify')
    call MPI_Win_get_attr(win, MPI_WIN_NOTIFY_NUMSB, attr, flag)
    call check(flag .and. attr == 16777216, 'step 4: MPI_WIN_NOTIFY_NUMSB')
    call MPI_Win_get_attr(win, MPI_WIN_NOTIFY_VALUE_UB, attr, flag)
    call check(flag .and. attr == huge(attr), 'step 4: MPI_WIN_NOTIFY_VALUE_UB')
    call MPI_Win_lock_all(0, win)
    if (rank == 0) then
        src2 = [(7000 + i, i = 1, n)]
        call MPI_Put_notify(src2, n, MPI_INTEGER, 1, int(n, MPI_ADDRESS_KIND), n, MPI_INTEGER, &
                            1, win)
        call MPI_Win_flush(1, win)
        got = 0
        call MPI_Rget_notify(got, n, MPI_INTEGER, 1, int(n, MPI_ADDRESS_KIND), n, MPI_INTEGER, &
                             1, win, req_any)
        call MPI_Wait(req_any, MPI_STATUS_IGNORE)
        call MPI_F_sync_reg(got)
        call check(all(got == [(7000 + i, i = 1, n)]), 'step 4: MPI_Rget_notify read')
    else if (rank == 1) then
        value = 0
        do while (value < 2)
            call MPI_Win_get_notify_value(win, 1, value)
        end do
        call MPI_Win_sync(win)
        call MPI_F_sync_reg(wbuf)
        call check(all(wbuf(n + 1:2 * n) == [(7000 + i, i = 1, n)]), &
                   'step 4: data of the draft MPI_Put_notify')
        call MPI_Win_reset_notify_value(win, 1, value)
        call check(value == 2, 'step 4: MPI_Win_reset_notify_value returned')
        call MPI_Win_get_notify_value(win, 1, value)
        call check(value == 0, 'step 4: counter after the reset')
    end if
    call MPI_Win_unlock_all(win)
    call MPI_Win_set_num_notify(win, MPI_INFO_NULL, 0)

    if (rank == 1) call MPI_Request_free(req)           ! before MPI_Win_free
    call MPI_Win_free(win)

    call MPI_Reduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
    if (rank == 0) then
        if (toterrs == 0) then
            print '(a)', 'No Errors'
        else
            print '(a,i0,a)', 'Found ', toterrs, ' errors'
            call MPI_Abort(MPI_COMM_WORLD, 1)
        end if
    end if
    call MPI_Finalize()

contains

    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok) then
            errs = errs + 1
            print '(a,i0,2a)', 'rank ', rank, ': ', what
        end if
    end subroutine check

end program notify_f08

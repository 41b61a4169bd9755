! The indices MPI_Waitany, MPI_Testany, MPI_Waitsome and MPI_Testsome
! return through "use mpi", or through mpif.h when compiled with
! -DUSE_MPIF_H: the checks of test/fortran/waitany_f08.f90 (which says what
! each step does) in the ierror form of these bindings.  Fortran counts the
! requests from 1, and MPI_UNDEFINED stays MPI_UNDEFINED (patches/fixes/0018;
! MPICH 4.0.2 added 1 to MPI_UNDEFINED here).  Prints "No Errors" from rank
! 0, or each failed check, "Found N errors" and MPI_Abort.  Any number of
! processes.
program waitany_mpi
    use, intrinsic :: iso_fortran_env, only : output_unit
#ifndef USE_MPIF_H
    use mpi
#endif
    implicit none
#ifdef USE_MPIF_H
    include 'mpif.h'
#endif

    integer, parameter :: nreq = 5
    integer :: reqs(nreq), sreq
    integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, nreq)
    integer :: rbuf(nreq), sbuf(nreq)
    integer :: indices(nreq)
    integer :: ierr, rank, errs, toterrs, idx, outcount, got, i
    logical :: flag, seen(nreq)

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    errs = 0
    sbuf = [(100 + i, i = 1, nreq)]
    rbuf = -1

    ! 1. MPI_Waitany
    reqs = MPI_REQUEST_NULL
    call MPI_Irecv(rbuf(3), 1, MPI_INTEGER, 0, 3, MPI_COMM_SELF, reqs(3), ierr)
    call MPI_Send(sbuf(3), 1, MPI_INTEGER, 0, 3, MPI_COMM_SELF, ierr)
    idx = -1
    call MPI_Waitany(nreq, reqs, idx, status, ierr)
    call check_int(idx, 3, 'MPI_Waitany: index of request 3')
    call check_int(status(MPI_TAG), 3, 'MPI_Waitany: status tag')
    call check_int(rbuf(3), 103, 'MPI_Waitany: data')
    call check(reqs(3) == MPI_REQUEST_NULL, 'MPI_Waitany: request 3 not freed')
    idx = -1
    call MPI_Waitany(nreq, reqs, idx, status, ierr)
    call check_int(idx, MPI_UNDEFINED, 'MPI_Waitany: all null')

    ! 2. MPI_Testany
    call MPI_Irecv(rbuf(4), 1, MPI_INTEGER, 0, 4, MPI_COMM_SELF, reqs(4), ierr)
    idx = -1
    flag = .true.
    call MPI_Testany(nreq, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
    call check(.not. flag, 'MPI_Testany: flag true before the message was sent')
    call check_int(idx, MPI_UNDEFINED, 'MPI_Testany: nothing completed')
    call MPI_Isend(sbuf(4), 1, MPI_INTEGER, 0, 4, MPI_COMM_SELF, sreq, ierr)
    flag = .false.
    do while (.not. flag)
        call MPI_Testany(nreq, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
    end do
    call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)
    call check_int(idx, 4, 'MPI_Testany: index of request 4')
    call check_int(rbuf(4), 104, 'MPI_Testany: data')
    idx = -1
    flag = .false.
    call MPI_Testany(nreq, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
    call check(flag, 'MPI_Testany: all null, flag false')
    call check_int(idx, MPI_UNDEFINED, 'MPI_Testany: all null')

    ! 3. MPI_Waitsome
    call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, 0, 2, MPI_COMM_SELF, reqs(2), ierr)
    call MPI_Irecv(rbuf(5), 1, MPI_INTEGER, 0, 5, MPI_COMM_SELF, reqs(5), ierr)
    call MPI_Send(sbuf(2), 1, MPI_INTEGER, 0, 2, MPI_COMM_SELF, ierr)
    call MPI_Send(sbuf(5), 1, MPI_INTEGER, 0, 5, MPI_COMM_SELF, ierr)
    seen = .false.
    got = 0
    do while (got < 2)
        indices = -1
        outcount = -1
        call MPI_Waitsome(nreq, reqs, outcount, indices, statuses, ierr)
        if (outcount < 1 .or. outcount > 2 - got) then
            call check_int(outcount, 2 - got, 'MPI_Waitsome: outcount')
            exit
        end if
        do i = 1, outcount
            if (indices(i) /= 2 .and. indices(i) /= 5) then
                ! the nearer of 2 and 5
                call check_int(indices(i), merge(2, 5, indices(i) < 4), 'MPI_Waitsome: index')
            else if (seen(indices(i))) then
                call check(.false., 'MPI_Waitsome: an index given twice')
            else
                seen(indices(i)) = .true.
                call check_int(statuses(MPI_TAG, i), indices(i), 'MPI_Waitsome: status tag')
            end if
        end do
        got = got + outcount
    end do
    call check_int(rbuf(2), 102, 'MPI_Waitsome: data of request 2')
    call check_int(rbuf(5), 105, 'MPI_Waitsome: data of request 5')
    outcount = -1
    call MPI_Waitsome(nreq, reqs, outcount, indices, statuses, ierr)
    call check_int(outcount, MPI_UNDEFINED, 'MPI_Waitsome: all null')

    ! 4. MPI_Testsome
    call MPI_Irecv(rbuf(1), 1, MPI_INTEGER, 0, 1, MPI_COMM_SELF, reqs(1), ierr)
    outcount = -1
    call MPI_Testsome(nreq, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    call check_int(outcount, 0, 'MPI_Testsome: before the message was sent')
    call MPI_Isend(sbuf(1), 1, MPI_INTEGER, 0, 1, MPI_COMM_SELF, sreq, ierr)
    outcount = 0
    do while (outcount == 0)
        indices = -1
        call MPI_Testsome(nreq, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    end do
    call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)
    call check_int(outcount, 1, 'MPI_Testsome: outcount')
    call check_int(indices(1), 1, 'MPI_Testsome: index of request 1')
    call check_int(rbuf(1), 101, 'MPI_Testsome: data')
    outcount = -1
    call MPI_Testsome(nreq, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    call check_int(outcount, MPI_UNDEFINED, 'MPI_Testsome: all null')

    call MPI_Reduce(errs, toterrs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (rank == 0) then
        if (toterrs == 0) then
            print '(a)', 'No Errors'
        else
            print '(a,i0,a)', 'Found ', toterrs, ' errors'
            flush (output_unit)
            call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
        end if
    end if
    call MPI_Finalize(ierr)

contains

    subroutine check(ok, what)
        logical, intent(in) :: ok
        character(len=*), intent(in) :: what
        if (.not. ok) then
            errs = errs + 1
            print '(a,i0,2a)', 'rank ', rank, ': ', what
            flush (output_unit)
        end if
    end subroutine check

    subroutine check_int(got, want, what)
        integer, intent(in) :: got, want
        character(len=*), intent(in) :: what
        if (got /= want) then
            errs = errs + 1
            print '(a,i0,3a,i0,a,i0)', 'rank ', rank, ': ', what, ': got ', got, ', expected ', want
            flush (output_unit)
        end if
    end subroutine check_int

end program waitany_mpi

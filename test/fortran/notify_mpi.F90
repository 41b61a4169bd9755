! Notified Access from Fortran through "use mpi", or through mpif.h when
! compiled with -DUSE_MPIF_H (the bindings hook 0011 generates for both
! from src/binding/c/notify_api.txt).  Two ranks: rank 0 puts 10 integers
! with tag 3 into rank 1's window under a shared lock; rank 1 matches the
! notification with MPI_Notify_init / MPI_Start / MPI_Wait and checks the
! status and the data; then an ordinary MPI_Put to the same place after the
! unlock, read back with MPI_Get.  Then the MPI Forum draft's spelling of
! the same call, (..., notification_idx, win): rank 1 attaches 2 counters
! with MPI_Win_set_num_notify, rank 0 puts on counter 1, rank 1 reads it
! with MPI_Win_get_notify_value and resets it; an index out of range gives
! MPI_ERR_RMA_NOTIFICATION; the counter bound attributes read as in C.
! Prints "No Errors" from rank 0.
program notify_mpi
#ifndef USE_MPIF_H
  use mpi
#endif
  implicit none
#ifdef USE_MPIF_H
  include 'mpif.h'
#endif
  integer :: ierr, rank, win, req, i, errs
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: winsize, disp
  integer :: buf(10), src(10), back(10), num, cls
  integer(kind=MPI_COUNT_KIND) :: value
  integer(kind=MPI_ADDRESS_KIND) :: attr
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = 0
  winsize = 40
  call MPI_Win_create(buf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  errs = 0
  if (rank == 1) then
     call MPI_Notify_init(win, 0, 3, 1, req, ierr)
     call MPI_Start(req, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  disp = 0
  if (rank == 0) then
     src = [(i, i = 1, 10)]
     call MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win, ierr)
     call MPI_Put_notify(src, 10, MPI_INTEGER, 1, disp, 10, MPI_INTEGER, win, 3, ierr)
     call MPI_Win_unlock(1, win, ierr)
  else if (rank == 1) then
     call MPI_Wait(req, status, ierr)
     call MPI_F_sync_reg(buf)
     if (status(MPI_SOURCE) /= 0 .or. status(MPI_TAG) /= 3) errs = errs + 1
     do i = 1, 10
        if (buf(i) /= i) errs = errs + 1
     end do
     call MPI_Request_free(req, ierr)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  ! ordinary RMA to the same location after the notified put
  if (rank == 0) then
     src = -src
     call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win, ierr)
     call MPI_Put(src, 10, MPI_INTEGER, 1, disp, 10, MPI_INTEGER, win, ierr)
     call MPI_Win_flush(1, win, ierr)
     call MPI_Get(back, 10, MPI_INTEGER, 1, disp, 10, MPI_INTEGER, win, ierr)
     call MPI_Win_unlock(1, win, ierr)
     do i = 1, 10
        if (back(i) /= -i) errs = errs + 1
     end do
  end if
  ! the draft's spelling: the counter index before the window
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_set_num_notify(win, MPI_INFO_NULL, 2, ierr)
  call MPI_Win_get_num_notify(win, 1, num, ierr)
  if (num /= 2) errs = errs + 1
  call MPI_Win_get_attr(win, MPI_WIN_NOTIFY_NUMUB, attr, flag, ierr)
  if (.not. flag .or. attr /= 16777216) errs = errs + 1
  call MPI_Win_get_attr(win, MPI_WIN_NOTIFY_VALUE_UB, attr, flag, ierr)
  if (.not. flag .or. attr /= huge(attr)) errs = errs + 1
  if (rank == 0) then
     src = [(2 * i, i = 1, 10)]
     call MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN, ierr)
     call MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win, ierr)
     call MPI_Put_notify(src, 10, MPI_INTEGER, 1, disp, 10, MPI_INTEGER, 2, win, ierr)
     call MPI_Error_class(ierr, cls, i)
     if (cls /= MPI_ERR_RMA_NOTIFICATION) errs = errs + 1
     call MPI_Put_notify(src, 10, MPI_INTEGER, 1, disp, 10, MPI_INTEGER, 1, win, ierr)
     if (ierr /= MPI_SUCCESS) errs = errs + 1
     call MPI_Win_unlock(1, win, ierr)
  else if (rank == 1) then
     value = 0
     do while (value < 1)
        call MPI_Win_get_notify_value(win, 1, value, ierr)
     end do
     call MPI_F_sync_reg(buf)
     do i = 1, 10
        if (buf(i) /= 2 * i) errs = errs + 1
     end do
     call MPI_Win_reset_notify_value(win, 1, value, ierr)
     if (value /= 1) errs = errs + 1
     call MPI_Win_get_notify_value(win, 1, value, ierr)
     if (value /= 0) errs = errs + 1
  end if
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_Win_free(win, ierr)
  if (rank == 0) then
     if (errs == 0) then
        print '(a)', ' No Errors'
     else
        print '(a,i0,a)', ' Found ', errs, ' errors'
     end if
  end if
  call MPI_Finalize(ierr)
end program notify_mpi

/* A stand-in mpi.h for test/unit/natasks_stress.c: the types and constants
 * natasks/na_tasks.c uses, nothing more.  The functions are defined by the
 * test (a model of MPICH's global lock, progress and continuations), so
 * ThreadSanitizer sees every access. */
#ifndef NATASKS_MOCK_MPI_H
#define NATASKS_MOCK_MPI_H

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef struct mock_request *MPI_Request;
typedef struct {
    int MPI_SOURCE, MPI_TAG, MPI_ERROR;
    int count;                  /* the mock: activation number of the request */
} MPI_Status;

#define MPI_SUCCESS          0
#define MPI_ERR_REQUEST      7
#define MPI_ERR_COUNT        2
#define MPI_ERR_ARG         12
#define MPI_ERR_OTHER       15

#define MPI_COMM_NULL        0
#define MPI_COMM_WORLD       1
#define MPI_COMM_SELF        2
#define MPI_REQUEST_NULL     ((MPI_Request) 0)
#define MPI_STATUS_IGNORE    ((MPI_Status *) 1)
#define MPI_STATUSES_IGNORE  ((MPI_Status *) 1)
#define MPI_ANY_SOURCE      (-2)
#define MPI_ANY_TAG         (-1)
#define MPI_PROC_NULL       (-1)
#define MPI_BYTE             3

#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

/* continuations, as mpi.h of the patched MPICH (hook 0015) declares them */
typedef int (MPIX_Continue_cb_function) (int error_code, void *user_data);
#define MPIX_CONT_REQBUF_VOLATILE (1 << 0)
#define MPIX_CONT_PERSISTENT (1 << 1)
#define MPIX_CONT_POLL_ONLY (1 << 2)
#define MPIX_CONT_DEFER_COMPLETE (1 << 3)
#define MPIX_CONT_INVOKE_FAILED (1 << 4)
#define MPIX_CONT_IMMEDIATE (1 << 5)
#define MPIX_CONT_FORGET (1 << 6)

int MPI_Query_thread(int *provided);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm * newcomm);
int MPI_Comm_free(MPI_Comm * comm);
int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request * request);
int MPI_Test(MPI_Request * request, int *flag, MPI_Status * status);
int MPI_Cancel(MPI_Request * request);
int MPI_Wait(MPI_Request * request, MPI_Status * status);
int MPI_Add_error_class(int *errorclass);
int MPI_Add_error_code(int errorclass, int *errorcode);
int MPI_Add_error_string(int errorcode, const char *string);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Start(MPI_Request * request);
int MPIX_Continue(MPI_Request * op_request, MPIX_Continue_cb_function * cb, void *cb_data,
                  int flags, MPI_Status * status, MPI_Request cont_request);
int MPIX_Continueall(int count, MPI_Request array_of_op_requests[],
                     MPIX_Continue_cb_function * cb, void *cb_data, int flags,
                     MPI_Status array_of_statuses[], MPI_Request cont_request);
typedef int (MPI_Comm_copy_attr_function) (MPI_Comm comm, int keyval, void *extra_state,
                                           void *value_in, void *value_out, int *flag);
typedef int (MPI_Comm_delete_attr_function) (MPI_Comm comm, int keyval, void *value,
                                             void *extra_state);
#define MPI_COMM_NULL_COPY_FN ((MPI_Comm_copy_attr_function *) 0)
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function * copy_fn,
                           MPI_Comm_delete_attr_function * delete_fn, int *keyval,
                           void *extra_state);
int MPI_Comm_free_keyval(int *keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *value);
int MPI_Comm_delete_attr(MPI_Comm comm, int keyval);
/* the test's model of MPICH's, which deletes MPI_COMM_SELF's attributes
 * first (fix 0005) */
int MPI_Finalize(void);

#endif

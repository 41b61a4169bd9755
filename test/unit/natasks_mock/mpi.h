/* A stand-in mpi.h for test/unit/natasks_stress.c: the types and constants
 * natasks/na_tasks.c uses, nothing more.  The functions are defined by the
 * test (a model of MPICH's global lock, progress and completion functions),
 * so ThreadSanitizer sees every access. */
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
#define MPI_ERR_NO_MEM      34

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

typedef void (MPIX_Request_complete_function) (MPI_Status * status, void *extra_state);

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
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status * status);
int MPI_Start(MPI_Request * request);
int MPIX_Request_on_complete(MPI_Request request, MPIX_Request_complete_function * fn,
                             void *extra_state);
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
 * first (patch 0018) */
int MPI_Finalize(void);

#endif

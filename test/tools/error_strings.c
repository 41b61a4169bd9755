/* MPI_Error_string names every error class (issue 33; fix 0004): MPICH's
 * MPIX_ERR_* classes and ours, MPI 4.0's, and the MPI_T classes, read as
 * themselves, not "Unknown error class" or another class's text; and an
 * error our calls return reads as what went wrong.
 */
#include "na_test.h"

static void expect(int code, const char *name, const char *want)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    MPI_OK(MPI_Error_string(code, s, &len));
    MPI_OK(MPI_Error_class(code, &cls));
    CHECK(strstr(s, want) != NULL, "%s (%d): \"%s\", want it to contain \"%s\"", name, code, s,
          want);
    CHECK(len == (int) strlen(s), "%s: length %d for \"%s\"", name, len, s);
}

#define EXPECT(code, want) expect(code, #code, want)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    EXPECT(MPI_ERR_REQUEST, "Invalid MPI_Request");
    EXPECT(MPIX_ERR_PROC_FAILED, "Process failed");
    EXPECT(MPIX_ERR_PROC_FAILED_PENDING, "pending due to failure");
    EXPECT(MPIX_ERR_REVOKED, "revoked");
    EXPECT(MPIX_ERR_EAGAIN, "EAGAIN");
    EXPECT(MPIX_ERR_NOREQ, "request");
    EXPECT(MPIX_ERR_INVALID_NOTIFICATION, "Invalid notification counter");
    EXPECT(MPI_ERR_RMA_FLAVOR, "flavor");
    EXPECT(MPI_ERR_SESSION, "Session");
    EXPECT(MPI_ERR_PROC_ABORTED, "aborted");
    EXPECT(MPI_ERR_VALUE_TOO_LARGE, "too large");
    EXPECT(MPI_T_ERR_MEMORY, "Out of memory");
    EXPECT(MPI_T_ERR_NOT_INITIALIZED, "not initialized");
    EXPECT(MPI_T_ERR_INVALID_HANDLE, "handle");
    EXPECT(MPI_T_ERR_CVAR_SET_NEVER, "control variable");
    EXPECT(MPI_T_ERR_NOT_SUPPORTED, "not supported");

    /* every class mpi.h defines reads as itself: no "Unknown error class",
     * no two with the same text (54 and 79-100 are no class) */
    {
        static char text[128][MPI_MAX_ERROR_STRING];
        for (int c = 1; c <= MPIX_ERR_INVALID_NOTIFICATION; c++) {
            int len;
            if (c == 54 || (c > MPI_T_ERR_NOT_SUPPORTED && c <= MPICH_ERR_FIRST_MPIX))
                continue;
            MPI_OK(MPI_Error_string(c, text[c], &len));
            CHECK(strstr(text[c], "Unknown error class") == NULL && len > 0, "class %d: \"%s\"", c,
                  text[c]);
            for (int d = 1; d < c; d++)
                CHECK(strcmp(text[c], text[d]) != 0, "classes %d and %d both read \"%s\"", d, c,
                      text[c]);
        }
    }

    /* an error of our own calls: class and text */
    MPI_Win win;
    int *base, rc, cls = -1;
    MPI_Count v;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    rc = MPIX_Win_get_notify(win, 0, &v);
    MPI_OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION, "MPIX_Win_get_notify without counters: class %d",
          cls);
    expect(rc, "MPIX_Win_get_notify without counters", "Invalid notification counter");
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}

/* Where does each rank run?  Prints, per rank, its host name (as
 * MPI_Get_processor_name gives it), its network namespace (inode of
 * /proc/self/ns/net), its IPv4 addresses and the size of its shared-memory
 * node (MPI_COMM_TYPE_SHARED); checks that no two ranks share a namespace
 * and that MPICH sees every rank on a node of its own (no shared memory). */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
    int rank, size, nodesize, namelen, errs = 0;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm node;
    struct stat st;
    char addrs[256] = "";
    struct ifaddrs *ifa, *i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nodesize);
    MPI_Get_processor_name(host, &namelen);

    unsigned long ino = stat("/proc/self/ns/net", &st) == 0 ? (unsigned long) st.st_ino : 0;
    if (getifaddrs(&ifa) == 0) {
        for (i = ifa; i; i = i->ifa_next) {
            char a[INET_ADDRSTRLEN];
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
                continue;
            inet_ntop(AF_INET, &((struct sockaddr_in *) i->ifa_addr)->sin_addr, a, sizeof a);
            snprintf(addrs + strlen(addrs), sizeof addrs - strlen(addrs), " %s=%s",
                     i->ifa_name, a);
        }
        freeifaddrs(ifa);
    }
    printf("rank %d: host %s, netns %lu, node size %d,%s\n", rank, host, ino, nodesize, addrs);
    fflush(stdout);

    unsigned long all[size > 0 ? size : 1];
    MPI_Gather(&ino, 1, MPI_UNSIGNED_LONG, all, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    if (nodesize != 1) {
        printf("rank %d: shares a node with %d ranks\n", rank, nodesize - 1);
        errs++;
    }
    if (rank == 0)
        for (int a = 0; a < size; a++)
            for (int b = a + 1; b < size; b++)
                if (all[a] == all[b]) {
                    printf("ranks %d and %d share netns %lu\n", a, b, all[a]);
                    errs++;
                }
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    if (rank == 0 && errs == 0)
        printf("No Errors\n");
    MPI_Finalize();
    return errs != 0;
}

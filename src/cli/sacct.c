/* sacct.c - placeholder until the accounting issue lands. */
#include <stdio.h>

int main(void)
{
	fputs("sacct: not built yet\n", stderr);
	return 1;
}

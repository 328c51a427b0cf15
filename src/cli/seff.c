/* seff.c - placeholder until the accounting issue lands. */
#include <stdio.h>

int main(void)
{
	fputs("seff: not built yet\n", stderr);
	return 1;
}

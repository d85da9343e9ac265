// Found only through -I: the factor the kernel multiplies by, unless -D FACTOR says.
#ifndef FACTOR
#define FACTOR 1
#endif

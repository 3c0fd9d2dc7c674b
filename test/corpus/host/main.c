// The host program of the executable variants: it only has to load (its HIP translation
// unit's module constructor registers the fat binary before main runs).
int main(void) { return 0; }

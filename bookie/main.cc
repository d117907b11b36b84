// The bookie daemon: see bookie/daemon/bookie_main.h for its command line
// and exit codes.

#include "bookie/daemon/bookie_main.h"

int main(int argc, char** argv) { return bk::bookie::RunBookie(argc, argv); }

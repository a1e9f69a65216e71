#include "polyhe/polyhe.hpp"
int main() { return 0; }

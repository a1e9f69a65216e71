// GMP's out-of-memory behaviour (internal to polyhe_rns): by default GMP prints a message and
// calls abort() when an allocation fails, which would turn a too-large request into a signal.
#pragma once

namespace polyhe::detail {

/// Once per process, where GMP still uses its default functions (a program that installed its
/// own is left alone): GMP allocates through malloc/realloc/free as before, but a failed
/// allocation throws std::bad_alloc instead of aborting. GMP's manual leaves a throwing
/// allocator's effect on the GMP object being computed undefined; polyhe only lets the exception
/// pass (it never reuses a GMP value an exception interrupted), and libgmp is built with unwind
/// tables on the platforms we build (its .eh_frame carries the exception through). Called by
/// every RnsBasis construction, the only way polyhe reaches GMP.
void use_throwing_gmp_allocator();

}  // namespace polyhe::detail

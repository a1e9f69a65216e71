// The whole public API of polyhe.
#pragma once

#include "polyhe/arith/add.hpp"
#include "polyhe/arith/barrett.hpp"
#include "polyhe/arith/modulus.hpp"
#include "polyhe/arith/montgomery.hpp"
#include "polyhe/arith/primes.hpp"
#include "polyhe/arith/shoup.hpp"
#include "polyhe/core/error.hpp"
#include "polyhe/core/thread_pool.hpp"
#include "polyhe/cpu/elementwise.hpp"
#include "polyhe/ntt/batch.hpp"
#include "polyhe/ntt/plan.hpp"
#include "polyhe/ntt/polymul.hpp"
#include "polyhe/ntt/variant.hpp"
#include "polyhe/version.hpp"

// A user's program against the installed polyhe: CKKS encode, encrypt, multiply, relinearise,
// rescale, decrypt, decode, checked against the plain product. Exit status 0 when right.
#include <polyhe/polyhe.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  using namespace polyhe;
  rlwe::ParametersLiteral lit;
  lit.log_n = 13;
  lit.q_bits = {40, 30, 30};
  lit.p_bits = {40};
  const auto ctx = ckks::Context::create(rlwe::Parameters::create(lit));  // scale 2^30

  rlwe::KeyGenerator keygen(ctx->params());
  const auto sk = rlwe::share(keygen.secret_key());
  rlwe::Encryptor encryptor(keygen.public_key(*sk));
  const ckks::Evaluator eval(ctx, rlwe::share(keygen.relinearization_key(*sk)));
  const ckks::Decryptor decryptor(sk);

  std::vector<double> x(ctx->slots()), y(ctx->slots());
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.001 * static_cast<double>(i % 1000);
    y[i] = 1.5 - x[i];
  }
  const auto cx = ckks::encrypt(encryptor, ctx->encode(x));
  const auto cy = ckks::encrypt(encryptor, ctx->encode(y));
  const auto got = ctx->decode_real(decryptor.decrypt(eval.rescale(eval.multiply_relin(cx, cy))));
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::fmax(worst, std::fabs(got[i] - x[i] * y[i]));
  std::printf("installed polyhe %s: x*y over %zu slots, largest error %.2e\n", polyhe::kVersion,
              x.size(), worst);
  return worst < 1e-3 ? 0 : 1;
}

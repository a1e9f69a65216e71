// CKKS on a device: keys and ciphertexts moved once, then the same evaluator calls run there.
// This example uses the emulated device (the CUDA kernel bodies run on the host), so it runs on
// every machine; with a GPU, make the device with
//   polyhe::cuda::make_device(polyhe::cuda::Context::create(0))   (polyhe/backend/cuda/device.hpp)
// and nothing else changes. It checks its own result and exits non-zero if it is wrong.
#include <polyhe/ckks.hpp>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

int main() {
  using namespace polyhe;
  rlwe::ParametersLiteral lit;
  lit.log_n = 12;
  lit.q_bits = {36, 30};
  lit.p_bits = {36};
  const auto ctx = ckks::Context::create(rlwe::Parameters::create(lit));  // 128-bit secure

  rlwe::KeyGenerator keygen = ctx->key_generator();
  const rlwe::SecretKey sk = keygen.secret_key();

  // Each key is copied to the device once; the objects made from those copies work there.
  const std::shared_ptr<Device> dev = make_emulated_device();
  const ckks::Encryptor encryptor = ctx->encryptor(keygen.public_key(sk).to_device(dev));
  const ckks::Decryptor decryptor = ctx->decryptor(sk.to_device(dev));
  const ckks::Evaluator eval = ctx->evaluator(keygen.relinearization_key(sk).to_device(dev));

  std::vector<std::complex<double>> x(ctx->slots());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = {0.001 * static_cast<double>(i % 500), 0.25};
  const ckks::Ciphertext cx = encryptor.encrypt(ctx->encode(x));              // on the device
  const ckks::Ciphertext square = eval.rescale(eval.multiply_relin(cx, cx));  // on the device
  const auto got = ctx->decode(decryptor.decrypt(square));

  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - x[i] * x[i]));
  std::printf("x^2 on %s: largest slot error %.2e\n", dev->name().c_str(), worst);
  return worst < 1e-3 ? 0 : 1;
}

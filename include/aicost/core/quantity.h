// Strong physical and money quantities. A Quantity carries integer exponents of five base
// dimensions (bytes, seconds, FLOPs, US dollars, joules); * and / derive the result dimension, +
// and - only compile for equal dimensions, so `Bytes + Seconds` is a compile error
// (tests/compile_fail/bytes_plus_seconds.cc proves it). Values are stored in base units
// (B, s, FLOP, USD, J) as double: these are model estimates; exact ledger money lives elsewhere.
#pragma once

#include <compare>

namespace aicost::core {

template <int B, int S, int F, int M, int E>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double base_units) : v_(base_units) {}

  // The value in base units (bytes, seconds, FLOPs, USD, joules and their products).
  constexpr double value() const { return v_; }

  constexpr Quantity operator+(Quantity o) const { return Quantity(v_ + o.v_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(v_ - o.v_); }
  constexpr Quantity operator-() const { return Quantity(-v_); }
  constexpr Quantity& operator+=(Quantity o) {
    v_ += o.v_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    v_ -= o.v_;
    return *this;
  }
  constexpr Quantity operator*(double k) const { return Quantity(v_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(v_ / k); }
  constexpr Quantity& operator*=(double k) {
    v_ *= k;
    return *this;
  }
  friend constexpr Quantity operator*(double k, Quantity q) { return Quantity(k * q.v_); }
  constexpr auto operator<=>(const Quantity&) const = default;

 private:
  double v_ = 0.0;
};

// Product and quotient derive the dimension; a dimensionless result decays to double.
template <int B1, int S1, int F1, int M1, int E1, int B2, int S2, int F2, int M2, int E2>
constexpr auto operator*(Quantity<B1, S1, F1, M1, E1> a, Quantity<B2, S2, F2, M2, E2> b) {
  if constexpr (B1 + B2 == 0 && S1 + S2 == 0 && F1 + F2 == 0 && M1 + M2 == 0 && E1 + E2 == 0) {
    return a.value() * b.value();
  } else {
    return Quantity<B1 + B2, S1 + S2, F1 + F2, M1 + M2, E1 + E2>(a.value() * b.value());
  }
}

template <int B1, int S1, int F1, int M1, int E1, int B2, int S2, int F2, int M2, int E2>
constexpr auto operator/(Quantity<B1, S1, F1, M1, E1> a, Quantity<B2, S2, F2, M2, E2> b) {
  if constexpr (B1 == B2 && S1 == S2 && F1 == F2 && M1 == M2 && E1 == E2) {
    return a.value() / b.value();
  } else {
    return Quantity<B1 - B2, S1 - S2, F1 - F2, M1 - M2, E1 - E2>(a.value() / b.value());
  }
}

template <int B, int S, int F, int M, int E>
constexpr auto operator/(double k, Quantity<B, S, F, M, E> q) {
  return Quantity<-B, -S, -F, -M, -E>(k / q.value());
}

using Bytes = Quantity<1, 0, 0, 0, 0>;
using Seconds = Quantity<0, 1, 0, 0, 0>;
using Flops = Quantity<0, 0, 1, 0, 0>;
using Usd = Quantity<0, 0, 0, 1, 0>;
using Joules = Quantity<0, 0, 0, 0, 1>;
using FlopsPerSecond = Quantity<0, -1, 1, 0, 0>;
using BytesPerSecond = Quantity<1, -1, 0, 0, 0>;
using Watts = Quantity<0, -1, 0, 0, 1>;
using UsdPerSecond = Quantity<0, -1, 0, 1, 0>;       // an hourly rate is stored per second
using UsdPerByte = Quantity<-1, 0, 0, 1, 0>;         // transfer prices
using UsdPerByteSecond = Quantity<-1, -1, 0, 1, 0>;  // storage prices (USD per GB-month)
// Electricity (USD/kWh) and capacity rent (USD/kW-month: a kW held for a month is an energy).
using UsdPerJoule = Quantity<0, 0, 0, 1, -1>;
// Events per second: request and token rates of a service, failure and interruption rates
// (`1.0 / Seconds` is one; `PerSecond * Seconds` is a plain count).
using PerSecond = Quantity<0, -1, 0, 0, 0>;

inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kSecondsPerDay = 86400.0;
// A month is 730 hours wherever a rate becomes a monthly figure (infracost, OpenCost convention).
inline constexpr double kHoursPerMonth = 730.0;
inline constexpr double kSecondsPerMonth = kHoursPerMonth * kSecondsPerHour;
// A year is 8760 hours (365 days, 12 months of 730 h), as in USD/year and reservation terms.
inline constexpr double kHoursPerYear = 8760.0;
inline constexpr double kSecondsPerYear = kHoursPerYear * kSecondsPerHour;

constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kTiB = kGiB * 1024;
constexpr double kKB = 1e3, kMB = 1e6, kGB = 1e9, kTB = 1e12, kPB = 1e15;

constexpr Bytes bytes(double b) { return Bytes(b); }
constexpr Bytes gib(double x) { return Bytes(x * kGiB); }
constexpr Bytes gb(double x) { return Bytes(x * kGB); }
constexpr Seconds seconds(double s) { return Seconds(s); }
constexpr Seconds hours(double h) { return Seconds(h * kSecondsPerHour); }
constexpr Seconds days(double d) { return Seconds(d * kSecondsPerDay); }
constexpr Flops flops(double f) { return Flops(f); }
constexpr FlopsPerSecond tflops_per_s(double x) { return FlopsPerSecond(x * 1e12); }
constexpr BytesPerSecond gb_per_s(double x) { return BytesPerSecond(x * kGB); }
constexpr BytesPerSecond gbit_per_s(double x) { return BytesPerSecond(x * kGB / 8.0); }
constexpr Usd usd(double x) { return Usd(x); }
constexpr UsdPerSecond usd_per_hour(double x) { return UsdPerSecond(x / kSecondsPerHour); }
constexpr PerSecond per_second(double x) { return PerSecond(x); }
constexpr UsdPerByteSecond usd_per_gb_month(double x) {
  return UsdPerByteSecond(x / kGB / kSecondsPerMonth);
}
constexpr UsdPerByte usd_per_gb(double x) { return UsdPerByte(x / kGB); }
constexpr Watts watts(double x) { return Watts(x); }
constexpr Watts kilowatts(double x) { return Watts(x * 1e3); }
constexpr UsdPerJoule usd_per_kwh(double x) { return UsdPerJoule(x / (1e3 * kSecondsPerHour)); }
constexpr UsdPerJoule usd_per_kw_month(double x) {
  return UsdPerJoule(x / (1e3 * kSecondsPerMonth));
}

inline constexpr double in_gib(Bytes b) { return b.value() / kGiB; }
inline constexpr double in_hours(Seconds s) { return s.value() / kSecondsPerHour; }
inline constexpr double in_days(Seconds s) { return s.value() / kSecondsPerDay; }
inline constexpr double per_hour(UsdPerSecond r) { return r.value() * kSecondsPerHour; }

}  // namespace aicost::core

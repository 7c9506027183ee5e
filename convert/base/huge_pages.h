// Arrays of millions of events are filled right after they are allocated.
// With 4 KiB pages the kernel takes one fault per 4 KiB written, which on a
// big profile costs about as much as the filling itself. Asking for
// transparent huge pages (2 MiB) on an array's span cuts those faults
// 512-fold where the kernel grants them (THP set to "always" or
// "madvise"); where it does not, the advice changes nothing.
//
// The advice must come before the memory is first written: reserve, advise,
// then fill. ReserveLarge does the first two. It pays where a process builds
// such arrays again and again (grouping, derived lines, the trace index);
// the very first huge pages a process takes can cost more than they save on
// a VM whose host backs memory on first touch, so loading does without.
#pragma once

#include <cstddef>

namespace tbprof {

// Below this an array spans too few huge pages to be worth a system call.
inline constexpr size_t kHugePageAdviceMinBytes = size_t{4} << 20;

// Advises huge pages on the 2 MiB-aligned part of [data, data + bytes).
// Does nothing for spans under kHugePageAdviceMinBytes.
void AdviseHugePages(const void* data, size_t bytes);

// v.reserve(n), then the advice on its whole capacity.
template <typename Vector>
void ReserveLarge(Vector& v, size_t n) {
  v.reserve(n);
  AdviseHugePages(v.data(), v.capacity() * sizeof(typename Vector::value_type));
}

// v.assign(n, value) with the advice given before the values are written.
template <typename Vector, typename Value>
void AssignLarge(Vector& v, size_t n, const Value& value) {
  if (v.capacity() < n) {
    Vector().swap(v);  // the old buffer's pages would be copied for nothing
    ReserveLarge(v, n);
  }
  v.assign(n, value);
}

}  // namespace tbprof

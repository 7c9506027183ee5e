// Errors as values. A Status carries a message meant for the user (it names
// the file and, for decoding errors, the byte offset).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace tbprof {

enum class ErrorCode {
  kOk = 0,
  kInvalidArgument,
  kNotFound,
  kDataLoss,
  kUnimplemented,
  kInternal,
  kResourceExhausted,  // over a configured size limit
  kUnavailable,        // transient: busy, or a file changed while it was read; worth retrying
  kPermissionDenied,   // would leave the directory it is confined to
};

class Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return Status(); }
  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {ErrorCode::kInvalidArgument, std::move(m)}; }
inline Status NotFound(std::string m) { return {ErrorCode::kNotFound, std::move(m)}; }
inline Status DataLoss(std::string m) { return {ErrorCode::kDataLoss, std::move(m)}; }
inline Status Unimplemented(std::string m) { return {ErrorCode::kUnimplemented, std::move(m)}; }
inline Status Internal(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }
inline Status ResourceExhausted(std::string m) { return {ErrorCode::kResourceExhausted, std::move(m)}; }
inline Status Unavailable(std::string m) { return {ErrorCode::kUnavailable, std::move(m)}; }
inline Status PermissionDenied(std::string m) { return {ErrorCode::kPermissionDenied, std::move(m)}; }

template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}  // NOLINT: implicit like absl::StatusOr
  StatusOr(Status status) : v_(std::move(status)) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace tbprof

// Early returns for code that calls fallible functions in sequence:
//   RETURN_IF_ERROR(WriteHeader(out));
//   ASSIGN_OR_RETURN(auto model, LoadXSpaceFile(path));   // model is the value
// The error goes back to the caller unchanged (its message already names the
// file and offset).
#define TBPROF_STATUS_CONCAT_INNER(a, b) a##b
#define TBPROF_STATUS_CONCAT(a, b) TBPROF_STATUS_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                          \
  do {                                                 \
    ::tbprof::Status tbprof_status_ = (expr);          \
    if (!tbprof_status_.ok()) return tbprof_status_;   \
  } while (false)

#define ASSIGN_OR_RETURN(lhs, rexpr) \
  TBPROF_ASSIGN_OR_RETURN_IMPL(TBPROF_STATUS_CONCAT(tbprof_status_or_, __LINE__), lhs, rexpr)
#define TBPROF_ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                 \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

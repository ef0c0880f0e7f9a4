// map(fd, length, random?): maps `length` bytes of the open file `fd` read-only (PROT_READ, MAP_SHARED,
// offset 0) and returns them as an external ArrayBuffer whose finalizer munmaps them. The length is a
// 64-bit size_t, so files of any size map (the mapping is of the page cache: nothing is read until a
// page is touched). `random` adds madvise(MADV_RANDOM): no read-ahead around each faulted page.
// Failures throw an Error naming the system call, with errno and its text.
#include <errno.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define CHECK(env, call)                                                                           \
  do {                                                                                             \
    if ((call) != napi_ok) {                                                                       \
      throw_last(env);                                                                             \
      return NULL;                                                                                 \
    }                                                                                              \
  } while (0)

static void throw_last(napi_env env) {
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) return;
  const napi_extended_error_info* info = NULL;
  napi_get_last_error_info(env, &info);
  napi_throw_error(env, NULL, info != NULL && info->error_message != NULL ? info->error_message : "Node-API call failed");
}

static void throw_errno(napi_env env, const char* syscall, int err) {
  char text[256];
  snprintf(text, sizeof text, "%s: %s (errno %d)", syscall, strerror(err), err);
  napi_value message, error, code;
  if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message) != napi_ok ||
      napi_create_error(env, NULL, message, &error) != napi_ok) {
    napi_throw_error(env, NULL, text);
    return;
  }
  napi_value syscall_value;
  if (napi_create_int32(env, err, &code) == napi_ok) napi_set_named_property(env, error, "errno", code);
  if (napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &syscall_value) == napi_ok)
    napi_set_named_property(env, error, "syscall", syscall_value);
  napi_throw(env, error);
}

static void unmap(napi_env env, void* data, void* hint) {
  (void)env;
  munmap(data, (size_t)(uintptr_t)hint);
}

static napi_value map(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "map(fd, length, random?): fd and length are required");
    return NULL;
  }
  napi_valuetype type;
  CHECK(env, napi_typeof(env, argv[0], &type));
  int32_t fd = -1;
  if (type == napi_number) CHECK(env, napi_get_value_int32(env, argv[0], &fd));
  if (type != napi_number || fd < 0) {
    napi_throw_type_error(env, NULL, "map: fd must be an open file descriptor (a non-negative integer)");
    return NULL;
  }
  CHECK(env, napi_typeof(env, argv[1], &type));
  double length = 0;
  if (type == napi_number) CHECK(env, napi_get_value_double(env, argv[1], &length));
  // Integers up to 2^53 are exact in a double; a mapping's length must be one, and positive.
  if (type != napi_number || !(length >= 1 && length <= 9007199254740991.0) || length != (double)(uint64_t)length) {
    napi_throw_range_error(env, NULL, "map: length must be a positive safe integer");
    return NULL;
  }
  bool random = false;
  if (argc >= 3) {
    CHECK(env, napi_typeof(env, argv[2], &type));
    if (type == napi_boolean) CHECK(env, napi_get_value_bool(env, argv[2], &random));
    else if (type != napi_undefined) {
      napi_throw_type_error(env, NULL, "map: random must be a boolean");
      return NULL;
    }
  }
  size_t bytes = (size_t)(uint64_t)length;
  void* addr = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (addr == MAP_FAILED) {
    throw_errno(env, "mmap", errno);
    return NULL;
  }
  if (random && madvise(addr, bytes, MADV_RANDOM) != 0) {
    int err = errno;
    munmap(addr, bytes);
    throw_errno(env, "madvise", err);
    return NULL;
  }
  napi_value buffer;
  if (napi_create_external_arraybuffer(env, addr, bytes, unmap, (void*)(uintptr_t)bytes, &buffer) != napi_ok) {
    munmap(addr, bytes);
    throw_last(env);
    return NULL;
  }
  return buffer;
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_value fn;
  if (napi_create_function(env, "map", NAPI_AUTO_LENGTH, map, NULL, &fn) != napi_ok ||
      napi_set_named_property(env, exports, "map", fn) != napi_ok) {
    throw_last(env);
    return NULL;
  }
  return exports;
}

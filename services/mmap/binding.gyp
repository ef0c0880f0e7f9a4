{
  "targets": [
    {
      "target_name": "mmap",
      "sources": ["src/mmap.c"],
      "cflags": ["-std=c11", "-Wall", "-Wextra", "-Werror"],
      "defines": ["NAPI_VERSION=8", "_GNU_SOURCE"]
    }
  ]
}

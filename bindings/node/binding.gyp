# The npm user's build of the addon (docs/node.md, "Installing"): the sources meson builds,
# against the libfl that pkg-config finds (set PKG_CONFIG_PATH for one in another prefix).
# node-gyp must find Node's headers without downloading them: npm_config_nodedir=/usr.
{
  "targets": [
    {
      "target_name": "fl_node",
      "sources": [
        "src/fl-node.c",
        "src/fl-node-acquire.c",
        "src/fl-node-async.c",
        "src/fl-node-env.c",
        "src/fl-node-gate.c",
        "src/fl-node-lock.c",
        "src/fl-node-snapshot.c",
        "src/fl-node-value.c"
      ],
      "cflags": [
        "-std=gnu11",
        "-fvisibility=hidden",
        "<!@(pkg-config --cflags libfl-1)"
      ],
      "libraries": [
        "<!@(pkg-config --libs libfl-1)",
        "-Wl,-rpath,<!(pkg-config --variable=libdir libfl-1)"
      ]
    }
  ]
}

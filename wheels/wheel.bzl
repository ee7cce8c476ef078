"""tvm_wheel: a reproducible wheel from files Bazel built.

    tvm_wheel(
        name = "full_wheel",
        distribution = "tvm-stack",
        srcs = ["//python/tvm:all_files", "//ffi:headers", ...],
        path_map = {"python/": "", "ffi/include/": "tvm_ffi/include/"},
        requires = ["numpy>=1.22"],
    )

builds the folder `<name>/` holding one file, `<dist>-<version>-py3-none-<platform>.whl`.
The platform tag is computed by the tool from the symbol versions the shipped libraries need
(wheels/platform_tag.py), which Bazel cannot know when it plans the build: hence a folder
(a tree artifact) rather than a file of a fixed name.

Each file's place in the wheel is its path in the workspace (`short_path`: the same for a
source file and a generated one) with the longest matching `path_map` prefix replaced; a file
that matches no prefix is an error, so nothing lands in the wheel by accident.
The version is TVM_STACK_VERSION (bazel/version.bzl), the only place it is written.
"""

load("//bazel:version.bzl", "TVM_STACK_VERSION")

def _dest(path, path_map, label):
    best = None
    for prefix in path_map:
        if path.startswith(prefix) and (best == None or len(prefix) > len(best)):
            best = prefix
    if best == None:
        fail("%s: %s matches no path_map prefix %s" % (label, path, sorted(path_map.keys())))
    return path_map[best] + path[len(best):]

def _tvm_wheel_impl(ctx):
    lines = []
    seen = {}
    for f in ctx.files.srcs:
        dest = _dest(f.short_path, ctx.attr.path_map, ctx.label)
        if dest in seen:
            if seen[dest] != f.path:
                fail("%s: %s comes from both %s and %s" % (ctx.label, dest, seen[dest], f.path))
            continue
        seen[dest] = f.path
        lines.append("%s\t%s" % (dest, f.path))
    manifest = ctx.actions.declare_file(ctx.label.name + ".manifest")
    ctx.actions.write(manifest, "\n".join(sorted(lines)) + "\n")

    out = ctx.actions.declare_directory(ctx.label.name)
    args = ctx.actions.args()
    args.add("--manifest", manifest)
    args.add("--out-dir", out.path)
    args.add("--distribution", ctx.attr.distribution)
    args.add("--version", TVM_STACK_VERSION)
    args.add("--python-tag", "py3")
    args.add("--summary", ctx.attr.summary)
    args.add("--license", ctx.attr.license)
    for spec in ctx.attr.requires:
        args.add("--requires", spec)
    inputs = [manifest] + ctx.files.srcs
    if ctx.file.license_file:
        args.add("--license-file", ctx.file.license_file)
        inputs.append(ctx.file.license_file)
    if ctx.file.description_file:
        args.add("--description-file", ctx.file.description_file)
        inputs.append(ctx.file.description_file)
    ctx.actions.run(
        executable = ctx.executable._tool,
        arguments = [args],
        inputs = inputs,
        outputs = [out],
        mnemonic = "TvmWheel",
        progress_message = "Packing wheel %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

tvm_wheel = rule(
    implementation = _tvm_wheel_impl,
    doc = "A reproducible wheel (in a folder named like the target); see the module doc.",
    attrs = {
        "distribution": attr.string(mandatory = True, doc = "Distribution name on an index."),
        "srcs": attr.label_list(allow_files = True, doc = "Files to ship."),
        "path_map": attr.string_dict(mandatory = True, doc = "Workspace path prefix -> wheel path prefix."),
        "requires": attr.string_list(doc = "Requires-Dist lines."),
        "summary": attr.string(),
        "license": attr.string(),
        "license_file": attr.label(allow_single_file = True),
        "description_file": attr.label(allow_single_file = True),
        "_tool": attr.label(
            default = "//wheels:build_wheel",
            executable = True,
            cfg = "exec",
        ),
    },
)

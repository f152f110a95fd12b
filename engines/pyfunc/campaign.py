"""A campaign shard of the function engine, as the engine registry calls it."""

from __future__ import annotations

from engines.pyfunc import engine, packages
from engines.registry import Budget


def run(target: dict, options: dict, budget: Budget, sink) -> engine.Summary:
    """Fuzz the functions of ``target`` (its fields: module, package, search_path, include, …) within ``budget``.

    A target with a ``package`` is installed first (once per worker, cached)
    and fuzzed from its environment; the install log goes to the sink.
    """
    search_path = [p for p in target.get("search_path", "").split(":") if p]
    if target.get("package_archive"):
        # An upload: written once per worker under its content's hash, then installed like a path.
        target = {
            **target,
            "package": packages.store_archive(target["package_archive_name"], bytes(target["package_archive"])),
        }
    if target.get("package"):
        report = getattr(sink, "installed", None)
        try:
            installed = packages.ensure(target["package"])
        except (packages.InstallError, ValueError) as error:
            if report is not None:
                report(target["package"], getattr(error, "log", "") or str(error), False)
            raise engine.TargetError(str(error)) from None
        if report is not None and not installed.cached:
            report(target["package"], installed.log, True)
        search_path.append(installed.site_packages)
    config = engine.Config(
        target=target["module"] or packages.module_of(target.get("package_archive_name") or target.get("package", "")),
        seconds=budget.seconds,
        seed=budget.seed,
        max_executions=budget.max_executions,
        search_path=search_path,
        resume=budget.resume,
        include=target.get("include", "").split(),
        exclude=target.get("exclude", "").split(),
        setup=target.get("setup_modules", "").split(),
        ignore_exceptions=target.get("ignore_exceptions", "").split(),
    )
    return engine.run(config, sink)

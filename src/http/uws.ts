import { createRequire } from 'node:module';
import type * as Uws from 'uWebSockets.js';

export type UwsModule = typeof Uws;

/**
 * Loads uWebSockets.js and refuses its pure-Node fallback. The package we depend on
 * silently switches to a slow implementation when the native binding does not load
 * (wrong Node ABI, wrong libc) or when UWS_USE_FALLBACK is set; running on it would hide a
 * large slowdown and break the routes that use native-only calls.
 */
export function loadUws(): UwsModule {
  const require = createRequire(import.meta.url);
  const uws = require('uWebSockets.js') as UwsModule;
  if (!isNativeBinding(uws)) {
    // No opt-in: the fallback lacks parts this server uses (getQuery, App.close,
    // endWithoutBody throw there), so it could not serve correctly even if allowed.
    throw new Error(
      'uWebSockets.js loaded its pure-Node fallback instead of the native binding ' +
        `(Node ${process.version}, ABI ${process.versions.modules}, ${process.platform}-${process.arch}); ` +
        'refusing to start. Run on Node 20 with glibc 2.36 or newer, and unset UWS_USE_FALLBACK.',
    );
  }
  return uws;
}

/** The native addon's functions are C++ functions; the fallback's are JavaScript. */
export function isNativeBinding(uws: UwsModule): boolean {
  return Function.prototype.toString.call(uws.App).includes('[native code]');
}

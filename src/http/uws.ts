import { createRequire } from 'node:module';
import type * as Uws from 'uWebSockets.js';

export type UwsModule = typeof Uws;

/**
 * Loads uWebSockets.js and refuses its pure-Node fallback. The package we depend on
 * silently switches to a slow implementation when the native binding does not load
 * (wrong Node ABI, wrong libc); running the priority lane on it would hide a 10x slowdown.
 */
export function loadUws(allowFallback: boolean): UwsModule {
  const require = createRequire(import.meta.url);
  const uws = require('uWebSockets.js') as UwsModule;
  if (!isNativeBinding(uws) && !allowFallback) {
    throw new Error(
      'uWebSockets.js loaded its pure-Node fallback instead of the native binding ' +
        `(Node ${process.version}, ABI ${process.versions.modules}, ${process.platform}-${process.arch}); ` +
        'refusing to start. Use Node 20 on glibc, or set ALLOW_UWS_FALLBACK=true to run slowly anyway.',
    );
  }
  return uws;
}

/** The native addon's functions are C++ functions; the fallback's are JavaScript. */
export function isNativeBinding(uws: UwsModule): boolean {
  return Function.prototype.toString.call(uws.App).includes('[native code]');
}

// zod's settings for svc's servers, imported first by each server's composition root (src/servers/), so
// before any schema the server uses is made: a schema reads them when it is constructed.
//
// jitless: zod compiles a parser for each object schema with `new Function` the first time it parses.
// That pays off for a schema parsed millions of times; svc's are parsed once per request or event, and
// the compiling falls on start-up (the settings document: about 18 ms) and on each route's first request.
// Without it there is no code generated at run time either.
import { z } from 'zod';

z.config({ jitless: true });

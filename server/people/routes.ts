/**
 * Every route of a person on every device (local mode only: Supabase mode signs people in its own
 * way, and these answer 404 there), mounted under `/api` behind the person's rules.
 */
import { Hono } from 'hono';
import type { PersonEnv } from '../person';
import { deviceRoutes } from './deviceRoutes';
import { inviteRoutes } from './inviteRoutes';
import { passkeyRoutes } from './passkeyRoutes';
import type { PeopleDeps } from './signIn';

export function peopleRoutes(deps: PeopleDeps): Hono<PersonEnv> {
  const routes = new Hono<PersonEnv>();
  routes.route('/', passkeyRoutes(deps));
  routes.route('/', deviceRoutes(deps));
  routes.route('/', inviteRoutes(deps));
  return routes;
}

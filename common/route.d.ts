/**
 * The page's routes, decided in one place for the page and the server alike: `/` is the entry,
 * `/voice/<bot>` a conversation with one bot.
 */
export type Route = {
    page: 'home';
} | {
    page: 'voice';
    bot: string;
} | {
    page: 'missing';
    path: string;
};
/** A bot's slug as bot files are named: lower-case letters, digits and single dashes, 1–64 long. */
export declare const BOT_SLUG: RegExp;
export declare function parseRoute(pathname: string): Route;
/** Whether the server should answer this path with the entry page. */
export declare function isPageRoute(pathname: string): boolean;

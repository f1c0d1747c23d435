/** Classes of a link inside text or a table cell: accent colour, underlined on hover, a visible focus ring. */
export const textLinkStyle =
  'rounded-sm text-accent-700 hover:text-accent-800 hover:underline hover:underline-offset-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-accent-600';

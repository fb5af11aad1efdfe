// Runs before the first paint (an external file: the CSP allows no inline script) so a dark-mode
// user never sees a white flash. Same storage key and attribute as Mantine's color scheme manager.
(function () {
  var stored = null;
  try {
    stored = window.localStorage.getItem('mantine-color-scheme-value');
  } catch {
    stored = null;
  }
  var scheme = stored === 'light' || stored === 'dark' ? stored : null;
  if (!scheme) scheme = window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  document.documentElement.setAttribute('data-mantine-color-scheme', scheme);
})();

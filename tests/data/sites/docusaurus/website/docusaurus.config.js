// @ts-check
/** @type {import('@docusaurus/types').Config} */
const config = {
  title: 'Lena Park',
  tagline: 'Notes on data engineering',
  url: 'https://lenapark.dev',
  baseUrl: '/',
  presets: [
    [
      'classic',
      {
        docs: { sidebarPath: require.resolve('./sidebars.js') },
        blog: { showReadingTime: true },
      },
    ],
  ],
};

module.exports = config;

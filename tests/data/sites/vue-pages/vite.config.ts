import { defineConfig } from 'vite'
import Vue from '@vitejs/plugin-vue'
import VueRouter from 'unplugin-vue-router/vite'
import Markdown from 'unplugin-vue-markdown/vite'
import anchor from 'markdown-it-anchor'
import MagicLink from 'markdown-it-magic-link'
import GitHubAlerts from 'markdown-it-github-alerts'
import { slugify } from './scripts/slugify'

export default defineConfig({
  plugins: [
    VueRouter({ extensions: ['.vue', '.md'], routesFolder: 'pages' }),
    Vue({ include: [/\.vue$/, /\.md$/] }),
    Markdown({
      markdownItSetup(md) {
        md.use(anchor, { slugify })
        md.use(MagicLink, { linksMap: { Vite: 'https://vitejs.dev', Nuxt: 'https://nuxt.com' } })
        md.use(GitHubAlerts)
      },
    }),
  ],
})

// A Gatsby blog whose config names its address and a heading-anchor plugin.
module.exports = {
  siteMetadata: {
    title: "Field notes",
    siteUrl: "https://field.example",
  },
  plugins: [
    {
      resolve: "gatsby-plugin-mdx",
      options: { gatsbyRemarkPlugins: ["gatsby-remark-autolink-headers"] },
    },
  ],
}

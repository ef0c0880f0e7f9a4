ANSWERS = {"step 1.2 of \"What science fantasy young adult series, told in first person, has a set of companion books narrating the stories of enslaved worlds and alien species?\"":"Animorphs"}

def get_attribute_0524bca4c1ef(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
